/**
 * `run_log_update` (docs/run-logs.md, docs/socket-protocol.md#events-from-the-server): a run's log changed. Sent to
 * the run's audience (`SocketRooms.audience`: the users watching the collaboration and the rooms of the run's and
 * the initiator's organization), like the run's other events; one emit, so a socket in several of these rooms gets it
 * once. It carries ids and a length, never log text: clients read the log through `GET /result/{id}`.
 */
import { SocketRooms, type RunLogUpdatePayload } from '@federa/common';
import type { AppContext } from '../context.js';

/** The run whose log changed: its organization and its task's collaboration and initiator. */
export interface LoggedRun {
  collaboration_id: number | null;
  organization_id: number;
  initiator_id: number;
}

/** Announces a change of a run's log; a failure is logged, never thrown (the log is stored already). */
export function announceRunLog(ctx: AppContext, run: LoggedRun, payload: RunLogUpdatePayload): void {
  if (run.collaboration_id === null) return;
  try {
    const audience = SocketRooms.audience(run.collaboration_id, [run.organization_id, run.initiator_id]);
    ctx.events.emit(audience, 'run_log_update', payload);
  } catch (error) {
    // Followers see the change at their next read (a later event, or their safety or fallback polling).
    ctx.log.warn(
      { err: error, event: 'run.log_update_not_announced', result_id: payload.result_id },
      'could not announce a change of a run log',
    );
  }
}
