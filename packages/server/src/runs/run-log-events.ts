/**
 * `run_log_update` (docs/run-logs.md, docs/socket-protocol.md#events-from-the-server): a run's log changed. Sent to
 * `collaboration_<c>` and to `collaboration_<c>_organization_<o>` of every member, because researchers (whose
 * default role has only *event view organization*) are in the latter; one emit, so a socket in several of these
 * rooms gets it once. It carries ids and a length, never log text: clients read the log through `GET /result/{id}`.
 */
import { SocketRooms, type RunLogUpdatePayload } from '@federa/common';
import type { AppContext } from '../context.js';
import { memberIds } from '../repositories/collaboration.js';

/** Announces a change of a run's log; a failure is logged, never thrown (the log is stored already). */
export async function announceRunLog(
  ctx: AppContext,
  collaborationId: number,
  payload: RunLogUpdatePayload,
): Promise<void> {
  try {
    const members = await memberIds(ctx.dbh.db, collaborationId);
    const rooms = [
      SocketRooms.collaboration(collaborationId),
      ...members.map((o) => SocketRooms.collaborationOrganization(collaborationId, o)),
    ];
    ctx.events.emit(rooms, 'run_log_update', payload);
  } catch (error) {
    // Followers see the change at their next read (a later event, or their safety or fallback polling).
    ctx.log.warn(
      { err: error, event: 'run.log_update_not_announced', result_id: payload.result_id },
      'could not announce a change of a run log',
    );
  }
}
