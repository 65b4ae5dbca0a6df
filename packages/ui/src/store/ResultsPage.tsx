/**
 * A task's results as its store function declares them (`#/store/results/12`): the task's image and method name
 * the algorithm version (by digest) and function; each output, decrypted in this page, is drawn with the
 * function's views.
 */
import { useState } from 'react';
import type { StoreAlgorithm, StoreFunction } from '@federa/client';

import { client, keyState } from '../api.js';
import { KeyLoader } from '../components/KeyLoader.js';
import { ErrorBox, Progress } from '../components/ui.js';
import { useAsync } from '../hooks.js';
import { draftFrom } from '../pages/tasks/draft-from.js';
import { Link } from '../router.js';
import { visibleAlgorithms } from './review-parts.js';
import { Views } from './Views.js';
import type { Output } from './views.js';
import './store.css';

interface Found {
  name: string;
  algorithm: StoreAlgorithm | null;
  fn: StoreFunction | null;
  method: string;
  outputs: Output[];
  unreadable: number;
}

async function load(taskId: number): Promise<Found> {
  const draft = await draftFrom(taskId);
  const image = draft.image ?? '';
  const [versions, results, orgs] = await Promise.all([
    image.includes('@sha256:') ? visibleAlgorithms({ image }) : Promise.resolve([]),
    client.task.results(taskId),
    draft.collaboration ? client.collaboration.organizations(draft.collaboration) : Promise.resolve([]),
  ]);
  const algorithm = versions[0] ?? null;
  const method = draft.method ?? '';
  const names = new Map(orgs.map((o) => [o.id, o.name ?? `organization ${o.id}`]));
  const readable = results.filter((r) => !r.decryptionError && r.result !== null && r.result !== undefined);
  return {
    name: draft.name ?? '',
    algorithm,
    fn: algorithm?.functions.find((f) => f.name === method) ?? null,
    method,
    outputs: readable.map((r) => ({
      source: names.get(r.organizationId) ?? `organization ${r.organizationId}`,
      value: r.result,
    })),
    unreadable: results.filter((r) => r.decryptionError).length,
  };
}

export function ResultsPage({ taskId }: { taskId: number }) {
  const [keyName, setKeyName] = useState(keyState.fileName);
  const found = useAsync(() => load(taskId), [taskId, keyName]);
  const f = found.data;
  return (
    <section>
      <h1>
        Results of task #{taskId}
        {f?.name ? `: ${f.name}` : ''}
      </h1>
      <p>
        <Link to={`/task/${taskId}`}>Back to the task</Link>
      </p>
      <ErrorBox error={found.error} />
      {found.loading && !f ? <Progress label="Loading the results…" /> : null}
      {f && !f.algorithm ? (
        <p>
          This task did not run an algorithm of the store at a pinned digest, so no view is declared for it.
        </p>
      ) : null}
      {f && f.algorithm ? (
        <p>
          <Link to={`/store/algorithm/${f.algorithm.id}`}>
            {f.algorithm.display_name || f.algorithm.name}
          </Link>
          {f.fn ? `, function ${f.fn.display_name || f.fn.name}` : ''}
        </p>
      ) : null}
      {f?.algorithm?.status === 'replaced' ? (
        <p>
          This task ran a version since replaced by a newer one: its views are those of the version it ran.
        </p>
      ) : null}
      {f && f.algorithm && !f.fn ? (
        <div className="card">
          <p>
            {f.method
              ? `The algorithm has no function "${f.method}".`
              : "This task's input could not be read here: load your organization's key to see which function ran."}
          </p>
          <KeyLoader onLoaded={() => setKeyName(keyState.fileName)} />
        </div>
      ) : null}
      {f && f.unreadable > 0 ? (
        <p className="warn">
          {f.unreadable} result{f.unreadable === 1 ? ' is' : 's are'} encrypted for another organization or
          could not be read.
        </p>
      ) : null}
      {f?.fn && f.fn.ui_visualizations.length === 0 ? (
        <p>The function declares no view of its result; the task page shows it as it is.</p>
      ) : null}
      {f?.fn ? <Views views={f.fn.ui_visualizations} outputs={f.outputs} /> : null}
    </section>
  );
}
