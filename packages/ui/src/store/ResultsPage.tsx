/**
 * A task's results as its store function declares them (`#/store/results/12`). The task names the store and the
 * algorithm it ran (`store_id`, `store_algorithm_id`): a linked store's algorithm is read through this server, the
 * server's own store's by the digest the task ran (a task given a pinned image directly finds its views too). Each
 * output, decrypted in this page, is drawn with the function's views. A store that cannot be read leaves a note
 * saying why; the rest of the page works.
 */
import { useState } from 'react';

import { client, errorText, keyState } from '../api.js';
import { KeyLoader } from '../components/KeyLoader.js';
import { ErrorBox, Notice, Progress } from '../components/ui.js';
import { useAsync } from '../hooks.js';
import { draftFrom } from '../pages/tasks/draft-from.js';
import { Link } from '../router.js';
import { readAlgorithm, type ResultAlgorithm, type ResultFunction } from './result-algorithm.js';
import { visibleAlgorithms } from './review-parts.js';
import { storeAlgorithm, type StoreRef } from './stores.js';
import { Views } from './Views.js';
import type { Output } from './views.js';
import './store.css';

interface Source {
  algorithm: ResultAlgorithm | null;
  /** The linked store the algorithm is from; null: the store inside this server, or none. */
  store: { id: number; name: string } | null;
  /** Why the algorithm's views cannot be drawn, when its store could not tell. */
  note: string | null;
}

interface Found extends Source {
  name: string;
  fn: ResultFunction | null;
  method: string;
  outputs: Output[];
  unreadable: number;
}

/** The algorithm `algorithmId` of the linked store `storeId`, read through this server, as the task ran it. */
async function linkedSource(storeId: number, algorithmId: number, image: string): Promise<Source> {
  let store = { id: storeId, name: `store ${storeId}` };
  try {
    const ref = await client.request<StoreRef>('GET', `/algorithmstore/${storeId}`);
    if (typeof ref.name === 'string' && ref.name) store = { id: storeId, name: ref.name };
  } catch (e) {
    return {
      algorithm: null,
      store,
      note: `This task ran algorithm ${algorithmId} of linked store ${storeId}, which this server does not list for you now, so its views cannot be read. ${errorText(e)}`,
    };
  }
  let answer: unknown;
  try {
    answer = await storeAlgorithm(storeId, algorithmId);
  } catch (e) {
    return {
      algorithm: null,
      store,
      note: `The views of this task's algorithm cannot be read from the store ${store.name} now. ${errorText(e)}`,
    };
  }
  const algorithm = readAlgorithm(answer);
  if (!algorithm)
    return {
      algorithm: null,
      store,
      note: `The store ${store.name} did not describe algorithm ${algorithmId} as a store does, so its views cannot be drawn.`,
    };
  if (algorithm.pinned !== image)
    return {
      algorithm: null,
      store,
      note: `The store ${store.name} now describes algorithm ${algorithmId} as ${algorithm.pinned}, not the image this task ran (${image}), so its views are not drawn.`,
    };
  return { algorithm, store, note: null };
}

/** The version of the server's own store that the task's digest names. */
async function ownSource(image: string): Promise<Source> {
  const versions = image.includes('@sha256:') ? await visibleAlgorithms({ image }) : [];
  return { algorithm: readAlgorithm(versions[0]), store: null, note: null };
}

async function load(taskId: number): Promise<Found> {
  const task = await client.task.get(taskId);
  const image = task.image ?? '';
  const storeId = task.store_id;
  const algorithmId = task.store_algorithm_id;
  const collaboration = task.collaboration?.id;
  const [draft, source, results, orgs] = await Promise.all([
    draftFrom(taskId, task),
    storeId !== undefined && storeId > 0 && algorithmId !== undefined
      ? linkedSource(storeId, algorithmId, image)
      : ownSource(image),
    client.task.results(taskId),
    collaboration ? client.collaboration.organizations(collaboration) : Promise.resolve([]),
  ]);
  const method = draft.method ?? '';
  const names = new Map(orgs.map((o) => [o.id, o.name ?? `organization ${o.id}`]));
  const readable = results.filter((r) => !r.decryptionError && r.result !== null && r.result !== undefined);
  return {
    ...source,
    name: draft.name ?? '',
    fn: source.algorithm?.functions.find((f) => f.name === method) ?? null,
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
      {f?.note ? (
        <Notice>
          <p>{f.note}</p>
          <p>
            The <Link to={`/task/${taskId}`}>task page</Link> shows its results as they are.
          </p>
        </Notice>
      ) : null}
      {f && !f.algorithm && !f.note ? (
        <p>
          This task did not run an algorithm of the store at a pinned digest, so no view is declared for it.
        </p>
      ) : null}
      {f && f.algorithm ? (
        <p>
          {f.store ? (
            f.algorithm.label
          ) : (
            <Link to={`/store/algorithm/${f.algorithm.id}`}>{f.algorithm.label}</Link>
          )}
          {f.fn ? `, function ${f.fn.label}` : ''}
          {f.store ? `, from the store ${f.store.name}` : ''}
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
      {f?.fn && f.fn.unreadableViews > 0 ? (
        <p className="warn">
          {f.fn.unreadableViews === 1
            ? 'One view the store declares for this function cannot be read (it needs a name and a type), so it is not drawn.'
            : `${f.fn.unreadableViews} views the store declares for this function cannot be read (each needs a name and a type), so they are not drawn.`}
        </p>
      ) : null}
      {f?.fn && f.fn.views.length === 0 && f.fn.unreadableViews === 0 ? (
        <p>The function declares no view of its result; the task page shows it as it is.</p>
      ) : null}
      {f?.fn ? <Views views={f.fn.views} outputs={f.outputs} /> : null}
    </section>
  );
}
