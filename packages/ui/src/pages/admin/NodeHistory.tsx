/**
 * The periods a node was online (`GET /node/{id}/history`, docs/socket-protocol.md#online-history), newest first: when each
 * began and ended, how long it lasted and why it ended. On a phone each period is a block of labelled lines
 * instead of a table row, so that nothing scrolls sideways.
 */
import { useState } from 'react';
import type { NodeOnlinePeriod } from '@federa/client';
import { client } from '../../api.js';
import { ErrorBox, Pager, Progress, formatTime } from '../../components/ui.js';
import { useAsync } from '../../hooks.js';

const PER_PAGE = 10;

/** Why a period ended, in words (the API's `end_reason`). */
const END_REASONS: Record<string, string> = {
  disconnected: 'the node disconnected (stopped)',
  connection_lost: 'the connection was lost',
  timed_out: 'the node stopped answering',
  disconnected_by_server: 'the server closed the connection (key reset or session ended)',
  server_stopped: 'the server stopped',
  server_restarted: 'still open when the server restarted; ended at its last sign of life',
};

export const endReasonText = (reason: string | null): string =>
  reason === null ? 'unknown' : (END_REASONS[reason] ?? reason);

/** A length of time in its two largest units: `2 d 3 h`, `3 h 12 min`, `4 min 5 s`, `45 s`, `under 1 s`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const units: [number, string][] = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor(s / 3600) % 24, 'h'],
    [Math.floor(s / 60) % 60, 'min'],
    [s % 60, 's'],
  ];
  const first = units.findIndex(([n]) => n > 0);
  if (first === -1) return 'under 1 s';
  return units
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n} ${unit}`)
    .join(' ');
}

const lengthOf = (p: NodeOnlinePeriod, now: number): number =>
  (p.ended_at ? Date.parse(p.ended_at) : now) - Date.parse(p.started_at);

/**
 * `status` is the node's live status: the history is read again when it changes. `lastSeen` tells a node that never
 * connected from one whose periods predate the history (or were deleted).
 */
export function NodeHistory(props: { id: number; status: string | null; lastSeen: string | null }) {
  const { id, status } = props;
  const [page, setPage] = useState(1);
  const history = useAsync(() => client.node.history(id, { page, perPage: PER_PAGE }), [id, page, status]);
  const now = Date.now();
  const periods = history.data?.items ?? [];
  const open = page === 1 ? periods.find((p) => p.ended_at === null) : undefined;
  return (
    <section className="card" aria-labelledby="node-history">
      <h2 id="node-history">Online history</h2>
      <ErrorBox error={history.error} />
      {!history.data ? (
        history.error ? null : (
          <Progress label="Loading the online history…" />
        )
      ) : periods.length === 0 ? (
        <p className="muted">
          {props.lastSeen === null
            ? 'Never online: the node has not connected to this server yet.'
            : `No online periods recorded; the node was last seen ${formatTime(props.lastSeen)}.`}
        </p>
      ) : (
        <>
          {open ? (
            <p>
              Online since {formatTime(open.started_at)} ({formatDuration(lengthOf(open, now))} so far).
            </p>
          ) : page === 1 && periods[0]?.ended_at ? (
            <p>Offline since {formatTime(periods[0].ended_at)}.</p>
          ) : null}
          <table className="table periods">
            <thead>
              <tr>
                <th>Online from</th>
                <th>Until</th>
                <th>Duration</th>
                <th>Why it ended</th>
              </tr>
            </thead>
            <tbody>
              {periods.map((p) => (
                <tr key={p.id}>
                  <td data-label="Online from">{formatTime(p.started_at)}</td>
                  <td data-label="Until">{p.ended_at ? formatTime(p.ended_at) : 'now (online)'}</td>
                  <td data-label="Duration">
                    {formatDuration(lengthOf(p, now))}
                    {p.ended_at ? '' : ' so far'}
                  </td>
                  <td data-label="Why it ended">{p.ended_at ? endReasonText(p.end_reason) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {history.data.total > PER_PAGE ? (
            <Pager page={page} perPage={PER_PAGE} total={history.data.total} onPage={setPage} />
          ) : null}
        </>
      )}
    </section>
  );
}
