/**
 * One task: its tree (master → sub-tasks at any depth), each run's status and log, its results decrypted in
 * the browser as a table and charts, downloads, kill and re-run. Follows the task live through socket events.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { DecryptedResult, Organization, Task } from '@federa/client';

import { client, keyState, onServerEvent } from '../api.js';
import {
  BarChart,
  ErrorBox,
  Notice,
  Progress,
  Status,
  formatNumber,
  formatTime,
  refId,
} from '../components/ui.js';
import { flash } from '../flash.js';
import { useAction, useAsync } from '../hooks.js';
import { Link, navigate } from '../router.js';
import { useMe } from '../session.js';
import { warningOf } from './tasks/created-warnings.js';
import { RunsCard } from './tasks/RunsCard.js';
import { resultsLine } from './tasks/run-state.js';
import { chartSeries, download, numericFields, tableColumns, toCsv, type ResultRow } from '../results.js';

interface TreeNode {
  task: Task;
  children: TreeNode[];
}

/** The sub-tasks of a task, at any depth (one listing per level, every page read). */
async function loadTree(task: Task, depth = 0): Promise<TreeNode> {
  if (depth > 20 || !task.children || task.children.length === 0) return { task, children: [] };
  const children = await client.task.list({ parentId: task.id });
  return { task, children: await Promise.all(children.map((c) => loadTree(c, depth + 1))) };
}

function TreeView({ node, current }: { node: TreeNode; current: number }) {
  return (
    <li>
      {node.task.id === current ? (
        <strong aria-current="page">
          #{node.task.id} {node.task.name || node.task.image}
        </strong>
      ) : (
        <Link to={`/task/${node.task.id}`}>
          #{node.task.id} {node.task.name || node.task.image}
        </Link>
      )}{' '}
      <Status value={node.task.status ?? (node.task.complete ? 'completed' : 'pending')} />
      {node.children.length > 0 ? (
        <ul>
          {node.children.map((c) => (
            <TreeView key={c.task.id} node={c} current={current} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

function ResultValue({ result }: { result: DecryptedResult }) {
  if (result.decryptionError) return <span className="warn">{result.decryptionError}</span>;
  if (result.result === null || result.result === undefined) return <span className="muted">—</span>;
  const text = JSON.stringify(result.result, null, 2);
  return (
    <pre className="value" tabIndex={0}>
      {text && text.length > 4000 ? `${text.slice(0, 4000)}…` : text}
    </pre>
  );
}

export function TaskPage({ id }: { id: number }) {
  const [version, setVersion] = useState(0);
  const [keyName, setKeyName] = useState(keyState.fileName);
  const task = useAsync(() => client.task.get(id), [id, version]);
  const results = useAsync(() => client.task.results(id), [id, version, keyName]);
  const collabId = task.data?.collaboration?.id;
  const collab = useAsync(
    () => (collabId ? client.collaboration.get(collabId) : Promise.resolve(null)),
    [collabId],
  );
  const orgs = useAsync<Organization[]>(
    () => (collabId ? client.collaboration.organizations(collabId) : Promise.resolve([])),
    [collabId],
  );
  const root = task.data?.parent ? task.data.parent.id : null;
  const [rootTask, setRootTask] = useState<Task | null>(null);
  useEffect(() => {
    let stop = false;
    (async () => {
      if (!task.data) return;
      // Climb to the top of the tree, then load it downwards.
      let top = task.data;
      for (let i = 0; i < 20 && top.parent; i++) top = await client.task.get(top.parent.id);
      if (!stop) setRootTask(top);
    })().catch(() => undefined);
    return () => {
      stop = true;
    };
  }, [task.data, root]);
  const tree = useAsync(() => (rootTask ? loadTree(rootTask) : Promise.resolve(null)), [rootTask, version]);

  // Live: every status event of this task's run reloads the page's data (at most every 300 ms).
  const runId = task.data?.run_id;
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  const [live, setLive] = useState(false);
  useEffect(() => {
    const off = onServerEvent((event, payload) => {
      if (event === 'connect') return setLive(true);
      const p = (payload ?? {}) as { task_id?: number; run_id?: number; result_id?: number };
      // A node coming online may start a run that waited; a log batch is shown as it arrives.
      const relevant =
        event === 'status_update' ||
        event === 'node-online' ||
        event === 'node-offline' ||
        ((event === 'algorithm_status_change' || event === 'task_created' || event === 'run_log_update') &&
          (p.task_id === id || (runId !== undefined && p.run_id === runId)));
      if (!relevant) return;
      if (pending.current) return;
      pending.current = setTimeout(() => {
        pending.current = null;
        setVersion((v) => v + 1);
      }, 300);
    });
    return () => {
      off();
      if (pending.current) clearTimeout(pending.current);
      pending.current = null;
    };
  }, [id, runId]);

  // Status events reach only users who may watch the whole collaboration (`event VIEW COLLABORATION` or
  // `GLOBAL`, docs/socket-protocol.md); for others, and as a safety net, an unfinished task is re-read on a timer.
  const me = useMe();
  const watchesCollaboration = me.can('event', 'VIEW', ['COLLABORATION', 'GLOBAL']);
  // Unfinished while any run is open (`complete` is false): a task with a failed run may still have runs going.
  const unfinished = task.data ? !task.data.complete : false;
  useEffect(() => {
    if (!unfinished) return;
    const timer = setInterval(() => setVersion((v) => v + 1), watchesCollaboration ? 15_000 : 2_000);
    return () => clearInterval(timer);
  }, [unfinished, watchesCollaboration]);

  const kill = useAction();
  const [killed, setKilled] = useState<string | null>(null);
  const created = warningOf(id);
  const orgName = (orgId: number): string =>
    orgs.data?.find((o) => o.id === orgId)?.name ?? `organization ${orgId}`;
  const rows: ResultRow[] = useMemo(
    () =>
      (results.data ?? [])
        .filter((r) => !r.decryptionError && r.result !== null && r.result !== undefined)
        .map((r) => ({ label: orgName(r.organizationId), value: r.result })),
    [results.data, orgs.data],
  );
  const columns = tableColumns(rows);
  const missing = resultsLine(
    results.data ?? [],
    rows.length,
    task.data ? !task.data.complete : false,
    orgName,
  );
  const charts = chartSeries(rows);
  const encryptedUnread = (results.data ?? []).some(
    (r) => r.decryptionError && /encrypted|key/i.test(r.decryptionError),
  );
  const t = task.data;
  const status = t?.status ?? (t?.complete ? 'completed' : 'pending');
  const running = t ? !t.complete : false;

  if (task.error && !t) return <ErrorBox error={task.error} />;
  if (!t) return <Progress label={`Loading task #${id}…`} />;
  return (
    <section>
      <div className="titlebar">
        <h1>
          Task #{t.id}: {t.name || '(no name)'} <Status value={status} />
        </h1>
        <div className="actions">
          <span className={`live ${live ? 'on' : ''}`} title="Updates arrive from the server as they happen">
            {live ? '● live' : '○ connecting'}
          </span>
          <button type="button" onClick={() => navigate(`/new-task?from=${t.id}`)}>
            Re-run with changes
          </button>
          <button
            type="button"
            className="danger"
            disabled={!running || kill.busy}
            onClick={() => {
              if (
                window.confirm(
                  `Kill task #${t.id} "${t.name}" and every sub-task it started? Runs still going stop at ` +
                    'every organization; this cannot be undone.',
                )
              )
                void kill
                  .run(async () => {
                    await client.task.kill(t.id);
                    return true;
                  })
                  .then((ok) => {
                    if (ok) setKilled(`Task #${t.id} and its sub-tasks were told to stop.`);
                    setVersion((v) => v + 1);
                  });
            }}
          >
            {kill.busy ? 'Killing…' : 'Kill'}
          </button>
          {me.can('task', 'DELETE') ? (
            <button
              type="button"
              className="danger"
              disabled={kill.busy}
              onClick={() => {
                if (
                  !window.confirm(
                    `Delete task #${t.id} "${t.name}" and its results? Runs still going are stopped first; ` +
                      'its sub-tasks are kept. This cannot be undone.',
                  )
                )
                  return;
                void kill
                  .run(async () => {
                    await client.task.delete(t.id);
                    return true;
                  })
                  .then((ok) => {
                    if (!ok) return;
                    flash(`Task #${t.id} "${t.name}" deleted.`);
                    navigate(t.collaboration ? `/tasks?collaboration=${t.collaboration.id}` : '/tasks');
                  });
              }}
            >
              Delete
            </button>
          ) : null}
        </div>
      </div>
      <ErrorBox error={kill.error} />
      {killed ? <Notice>{killed}</Notice> : null}
      {created ? (
        <p className="notice warning" role="status">
          The server warned when the task was created: {created}
        </p>
      ) : null}
      <dl className="facts">
        <dt>Image</dt>
        <dd className="mono">{t.image}</dd>
        <dt>Collaboration</dt>
        <dd>
          {t.collaboration ? (
            <Link to={`/collaboration/${t.collaboration.id}`}>
              {collab.data?.name ?? `#${t.collaboration.id}`}
            </Link>
          ) : (
            '—'
          )}
        </dd>
        <dt>Database</dt>
        <dd>{t.database ?? 'default'}</dd>
        <dt>Created</dt>
        <dd>{formatTime(t.created_at)}</dd>
        {t.description ? (
          <>
            <dt>Description</dt>
            <dd>{t.description}</dd>
          </>
        ) : null}
      </dl>

      <div className="columns">
        <div className="card">
          <h2>Task tree</h2>
          {tree.data ? (
            <ul className="tree">
              <TreeView node={tree.data} current={t.id} />
            </ul>
          ) : (
            <Progress label="Loading the tree…" />
          )}
        </div>
        <RunsCard
          runs={results.data ?? []}
          error={results.error}
          orgName={orgName}
          askKey={encryptedUnread}
          onKey={() => setKeyName(keyState.fileName)}
        />
      </div>

      <div className="card">
        <div className="titlebar">
          <h2>Results</h2>
          <div className="actions">
            {/* A store algorithm's task (pinned by digest): its function's declared views of the results. */}
            {t.image.includes('@sha256:') ? (
              <Link to={`/store/results/${t.id}`} className="button">
                Result views
              </Link>
            ) : null}
            <button
              type="button"
              disabled={rows.length === 0}
              onClick={() =>
                download(
                  `task-${t.id}-results.json`,
                  JSON.stringify(
                    rows.map((r) => ({ source: r.label, value: r.value })),
                    null,
                    2,
                  ),
                  'application/json',
                )
              }
            >
              Download JSON
            </button>
            <button
              type="button"
              disabled={rows.length === 0}
              onClick={() => download(`task-${t.id}-results.csv`, toCsv(rows), 'text/csv')}
            >
              Download CSV
            </button>
          </div>
        </div>
        {missing ? <p className="muted">{missing}</p> : null}
        {columns.length > 0 ? (
          <div className="table-box" tabIndex={0}>
            <table className="table">
              <thead>
                <tr>
                  <th>Source</th>
                  {columns.map((c) => (
                    <th key={c} className="num">
                      {c}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => {
                  const f = numericFields(r.value);
                  return (
                    <tr key={r.label}>
                      <td>{r.label}</td>
                      {columns.map((c) => (
                        <td key={c} className="num">
                          {f[c] === undefined ? '' : formatNumber(f[c])}
                        </td>
                      ))}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        ) : null}
        <div className="charts">
          {charts.map((c) => (
            <BarChart key={c.title} title={c.title} data={c.data} />
          ))}
        </div>
        {(results.data ?? []).map((r) => (
          <details key={r.id} className="raw">
            <summary>Output of {orgName(r.organizationId)}</summary>
            <ResultValue result={r} />
          </details>
        ))}
      </div>
      <p className="muted">
        Task id {t.id} · run {t.run_id} · created by{' '}
        {refId(t.initiator) === null ? 'an unknown organization' : orgName(refId(t.initiator)!)}
      </p>
    </section>
  );
}
