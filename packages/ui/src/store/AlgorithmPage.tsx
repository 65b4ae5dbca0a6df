/**
 * One store algorithm (`#/store/algorithm/12`): what it is and runs (image and digest), its functions with their
 * arguments, databases and result views, its history (earlier and later versions of the same image, and each
 * review step) and its reviews. A reviewer decides here on a review assigned to them; a store manager assigns
 * reviewers.
 */
import { useState } from 'react';
import type { StoreAlgorithm, StoreFunction, StoreReview } from '@federa/client';

import { client } from '../api.js';
import { ErrorBox, Notice, Progress, formatTime } from '../components/ui.js';
import { useAsync } from '../hooks.js';
import { Link } from '../router.js';
import { TYPE_HINT } from './ArgumentField.js';
import {
  AssignReviewer,
  ReviewDecision,
  hasRole,
  personName,
  useStoreMe,
  visibleAlgorithms,
} from './review-parts.js';
import { StoreStatus } from './StoreStatus.js';
import './store.css';

const nameOf = (a: StoreAlgorithm): string => a.display_name || a.name;

/** An image's repository: without its tag and digest (`reg:5000/x/avg:1@sha256:…` → `reg:5000/x/avg`). */
export function repositoryOf(image: string): string {
  const bare = image.split('@')[0]!;
  const slash = bare.lastIndexOf('/');
  const colon = bare.lastIndexOf(':');
  return colon > slash ? bare.slice(0, colon) : bare;
}

/** The steps of one version, oldest first, from its dates and its reviews. */
export function timeline(a: StoreAlgorithm, reviews: readonly StoreReview[]): { at: string; what: string }[] {
  const steps: { at: string; what: string }[] = [];
  if (a.submitted_at) steps.push({ at: a.submitted_at, what: 'Submitted' });
  for (const r of reviews) {
    if (r.requested_at)
      steps.push({
        at: r.requested_at,
        what: `${personName(r.requested_by)} assigned ${personName(r.reviewer)} to review`,
      });
    if (r.submitted_at && (r.status === 'approved' || r.status === 'rejected'))
      steps.push({
        at: r.submitted_at,
        what: `${personName(r.reviewer)} ${r.status} it${r.comment ? `: “${r.comment}”` : ''}`,
      });
  }
  if (a.approved_at) steps.push({ at: a.approved_at, what: 'Approved: researchers can run it' });
  if (a.invalidated_at)
    steps.push({
      at: a.invalidated_at,
      what:
        a.status === 'replaced'
          ? `Replaced by version #${a.replaced_by_id ?? '?'}`
          : `Taken out of use (${a.status})`,
    });
  return steps.sort((x, y) => x.at.localeCompare(y.at));
}

function FunctionCard({ algorithm, fn }: { algorithm: StoreAlgorithm; fn: StoreFunction }) {
  const runnable = fn.standalone && algorithm.status === 'approved' && algorithm.digest;
  return (
    <article className="card">
      <div className="titlebar">
        <h3>
          {fn.display_name || fn.name} <code className="mono">{fn.name}</code>
        </h3>
        {runnable ? (
          <Link
            className="button primary"
            to={`/store/new-task?algorithm=${algorithm.id}&function=${encodeURIComponent(fn.name)}`}
          >
            Create a task with {fn.display_name || fn.name}
          </Link>
        ) : null}
      </div>
      <p>
        {fn.type === 'central' ? 'Central: it starts the federated part itself' : 'Federated'} ·{' '}
        {fn.standalone ? 'a researcher may start it' : 'started by another function'}
      </p>
      {fn.description ? <p>{fn.description}</p> : null}
      {fn.arguments.length > 0 ? (
        <div className="table-box" tabIndex={0}>
          <table className="table">
            <caption>Arguments of {fn.display_name || fn.name}</caption>
            <thead>
              <tr>
                <th scope="col">Argument</th>
                <th scope="col">Type</th>
                <th scope="col">Required</th>
                <th scope="col">Allowed values</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {fn.arguments.map((arg) => (
                <tr key={arg.name}>
                  <td>
                    {arg.display_name || arg.name} <code className="mono">{arg.name}</code>
                  </td>
                  <td>{TYPE_HINT[arg.type] ?? arg.type}</td>
                  <td>
                    {arg.has_default_value
                      ? `no (default ${arg.default_value === undefined ? 'none' : arg.default_value})`
                      : 'yes'}
                  </td>
                  <td>{(arg.allowed_values ?? []).map(String).join(', ') || 'any'}</td>
                  <td>
                    {arg.description ?? ''}
                    {arg.conditional_on
                      ? ` (asked when ${arg.conditional_on} ${arg.conditional_operator ?? ''} ${arg.conditional_value ?? ''})`
                      : ''}
                    {arg.is_frontend_only ? ' (for the form only, not sent)' : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p>No arguments.</p>
      )}
      {fn.databases.length > 0 ? (
        <p>
          Databases:{' '}
          {fn.databases.map((d) => `${d.name}${d.description ? ` (${d.description})` : ''}`).join('; ')}
        </p>
      ) : null}
      {fn.ui_visualizations.length > 0 ? (
        <p>
          Results shown as:{' '}
          {fn.ui_visualizations
            .map((v) => `${v.name} (${v.type === 'line' ? 'line chart' : v.type})`)
            .join('; ')}
        </p>
      ) : null}
    </article>
  );
}

export function AlgorithmPage({ id }: { id: number }) {
  const algorithm = useAsync(() => client.store.get(id), [id]);
  const me = useStoreMe();
  const [decided, setDecided] = useState<string | null>(null);
  const reviews = useAsync(() => client.store.reviews({ algorithmId: id }), [id]);
  const manager = hasRole(me.data, 'store manager');
  const reviewers = useAsync(
    () =>
      manager
        ? client.store.users().then((us) => us.filter((u) => u.roles.includes('reviewer')))
        : Promise.resolve([]),
    [manager],
  );
  const name = algorithm.data?.name;
  const repository = algorithm.data ? repositoryOf(algorithm.data.image) : '';
  // The versions: the same name and image repository (a new version replaces the approved one of its repository).
  const versions = useAsync(
    () =>
      name
        ? visibleAlgorithms({ name }).then((vs) =>
            vs.filter((v) => v.name === name && repositoryOf(v.image) === repository),
          )
        : Promise.resolve([]),
    [name, repository],
  );
  if (algorithm.error)
    return (
      <section>
        <h1>Algorithm #{id}</h1>
        <ErrorBox error={algorithm.error} />
      </section>
    );
  const a = algorithm.data;
  if (!a) return <Progress label="Loading the algorithm…" />;
  const list = reviews.data ?? [];
  const mine = list.filter((r) => r.status === 'under review' && r.reviewer.id === me.data?.id);
  const reload = (): void => {
    algorithm.reload();
    reviews.reload();
  };
  const open = a.status === 'awaiting reviewer assignment' || a.status === 'under review';
  return (
    <section>
      <div className="titlebar">
        <h1>{nameOf(a)}</h1>
        <StoreStatus value={a.status} />
      </div>
      {a.description ? <p>{a.description}</p> : null}
      <div className="card">
        <dl className="store-details">
          <dt>Name</dt>
          <dd>
            <code className="mono">{a.name}</code> (version #{a.id})
          </dd>
          <dt>Image</dt>
          <dd>
            <code className="mono">{a.image}</code>
          </dd>
          <dt>Digest</dt>
          <dd>
            {a.digest ? (
              <code className="mono">{a.digest}</code>
            ) : (
              <span className="warn">not pinned: it cannot be approved until the author pins it</span>
            )}
          </dd>
          <dt>Partitioning</dt>
          <dd>{a.partitioning}</dd>
          <dt>Contract</dt>
          <dd>vantage6 {a.vantage6_version}</dd>
          <dt>Code</dt>
          <dd>
            <a href={a.code_url}>{a.code_url}</a>
          </dd>
          {a.documentation_url ? (
            <>
              <dt>Documentation</dt>
              <dd>
                <a href={a.documentation_url}>{a.documentation_url}</a>
              </dd>
            </>
          ) : null}
          {a.submission_comments ? (
            <>
              <dt>Author's note</dt>
              <dd>{a.submission_comments}</dd>
            </>
          ) : null}
        </dl>
      </div>

      {decided ? <Notice>{decided}</Notice> : null}
      {mine.map((r) => (
        <div key={r.id} className="card">
          <h2>Your review</h2>
          <p>
            {personName(r.requested_by)} asked you to review this version on {formatTime(r.requested_at)}.
          </p>
          <ReviewDecision
            review={r}
            onDone={(outcome) => {
              setDecided(outcome);
              reload();
            }}
          />
        </div>
      ))}

      <h2>Functions</h2>
      {a.functions.map((f) => (
        <FunctionCard key={f.name} algorithm={a} fn={f} />
      ))}

      <h2>Reviews</h2>
      <ErrorBox error={reviews.error} />
      {list.length === 0 && !reviews.loading ? (
        <p>No review to show: reviews are shown to reviewers, store managers and the algorithm's author.</p>
      ) : null}
      {list.length > 0 ? (
        <div className="table-box" tabIndex={0}>
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Reviewer</th>
                <th scope="col">Status</th>
                <th scope="col">Comment</th>
                <th scope="col">Assigned</th>
                <th scope="col">Decided</th>
              </tr>
            </thead>
            <tbody>
              {list.map((r) => (
                <tr key={r.id}>
                  <td>{personName(r.reviewer)}</td>
                  <td>
                    <StoreStatus value={r.status} />
                  </td>
                  <td>{r.comment ?? ''}</td>
                  <td>{formatTime(r.requested_at)}</td>
                  <td>{formatTime(r.submitted_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {manager && open ? (
        <div className="card">
          <h3>Assign a reviewer</h3>
          <ErrorBox error={reviewers.error} />
          <AssignReviewer
            algorithm={a}
            reviewers={reviewers.data ?? []}
            taken={list.filter((r) => r.status === 'under review').map((r) => r.reviewer.id)}
            onDone={reload}
          />
        </div>
      ) : null}

      <h2>History</h2>
      <ol className="timeline" aria-label="Steps of this version">
        {timeline(a, list).map((s, i) => (
          <li key={i}>
            {formatTime(s.at)}: {s.what}
          </li>
        ))}
      </ol>
      {(versions.data ?? []).length > 1 ? (
        <div className="table-box" tabIndex={0}>
          <table className="table">
            <caption>Versions of {a.name}</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Status</th>
                <th scope="col">Digest</th>
                <th scope="col">Submitted</th>
              </tr>
            </thead>
            <tbody>
              {[...(versions.data ?? [])]
                .sort((x, y) => y.id - x.id)
                .map((v) => (
                  <tr key={v.id}>
                    <td>
                      {v.id === a.id ? (
                        <strong aria-current="page">#{v.id} (this one)</strong>
                      ) : (
                        <Link to={`/store/algorithm/${v.id}`}>#{v.id}</Link>
                      )}
                    </td>
                    <td>
                      <StoreStatus value={v.status} />
                    </td>
                    <td>
                      <code className="mono break">{v.digest ?? 'not pinned'}</code>
                    </td>
                    <td>{formatTime(v.submitted_at)}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
