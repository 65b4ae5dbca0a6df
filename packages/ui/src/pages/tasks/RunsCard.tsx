/**
 * The runs of a task: one row per organization with its status and log (followed live while it runs), and above
 * them, in words, what waits on an offline node and what failed.
 */
import { Fragment } from 'react';
import type { DecryptedResult } from '@federa/client';

import { KeyLoader } from '../../components/KeyLoader.js';
import { ErrorBox, Status, formatTime } from '../../components/ui.js';
import { failureText, hasFailed, listWords, nodeLabel, waitsOnOfflineNode } from './run-state.js';

export function RunsCard(props: {
  runs: readonly DecryptedResult[];
  error: string | null;
  orgName: (id: number) => string;
  /** Shown when the results are encrypted for the user's organization and no key is loaded. */
  askKey: boolean;
  onKey: () => void;
}) {
  const { runs, orgName } = props;
  const offline = runs.filter(waitsOnOfflineNode);
  const failed = runs.filter(hasFailed);
  return (
    <div className="card grow">
      <h2>Runs</h2>
      {props.askKey ? (
        <div className="notice">
          The results are encrypted for your organization. <KeyLoader onLoaded={props.onKey} />
        </div>
      ) : null}
      {offline.length > 0 ? (
        <p className="notice warning" role="status">
          Waiting for {listWords(offline.map((r) => nodeLabel(r, orgName)))}:{' '}
          {offline.length === 1 ? 'this node is' : 'these nodes are'} offline. The task runs there when the
          node connects; ask its node administrator to start it (vnode start).
        </p>
      ) : null}
      {failed.length > 0 ? <p className="notice failure">{failureText(failed, orgName)}</p> : null}
      <ErrorBox error={props.error} />
      <div className="table-box" tabIndex={0}>
        <table className="table">
          <thead>
            <tr>
              <th>Organization</th>
              <th>Status</th>
              <th>Started</th>
              <th>Finished</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <Fragment key={r.id}>
                <tr className={r.log ? 'has-log' : undefined}>
                  <td>{orgName(r.organizationId)}</td>
                  <td>
                    <Status value={r.status} />
                    {waitsOnOfflineNode(r) ? <small className="muted"> node offline</small> : null}
                  </td>
                  <td>{formatTime(r.started_at)}</td>
                  <td>{formatTime(r.finished_at)}</td>
                </tr>
                {/* The log on a row of its own, the table's whole width (readable on a phone). It follows the run
                    while it is active (the page re-reads it at each log event); a failed run's log is open, as it
                    is the first thing to read. */}
                {r.log ? (
                  <tr className="log-row">
                    <td colSpan={4}>
                      <details open={hasFailed(r)}>
                        <summary>
                          {`${r.finished_at ? 'Log' : 'Log so far'} of ${orgName(r.organizationId)} ` +
                            `(${r.log.split('\n').length} lines)`}
                        </summary>
                        <pre className="log" tabIndex={0}>
                          {r.log}
                        </pre>
                      </details>
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
