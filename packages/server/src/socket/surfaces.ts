/**
 * The two socket surfaces (docs/socket-protocol.md#vantage6-4x-clients-and-nodes): vantage6 4.x's nodes and clients
 * connect to the same `/tasks` namespace and rooms as 3.x's, but read some events in another form (`run_id` is a
 * run there, a job here; `new_task` is an object). A socket is 4.x's when its token's session began with a login on
 * the 4.x surface (`/v4/api/token/...`: its session id carries {@link V4_SESSION_PREFIX}). Such a socket joins, for
 * each room {@link roomsOf} gives it, that room's 4.x twin (`v4:<room>`): who hears what is decided once, for both
 * surfaces, and every event sent to rooms goes to their twins in 4.x's form ({@link emitToSurfaces}).
 */
import type { Namespace } from 'socket.io';
import type { AppContext } from '../context.js';
import { findTask } from '../repositories/task/index.js';

/** The start of the id of a session opened on the 4.x surface. */
export const V4_SESSION_PREFIX = 'v4-';

/** Whether a session id is that of a login on the 4.x surface. */
export const isV4Session = (sid: string | undefined): boolean => sid?.startsWith(V4_SESSION_PREFIX) ?? false;

/** The 4.x twin of a room. */
export const v4Room = (room: string): string => `v4:${room}`;

/** The rooms a socket of this surface joins for `rooms`. */
export const surfaceRooms = (v4: boolean, rooms: readonly string[]): string[] =>
  v4 ? rooms.map(v4Room) : [...rooms];

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null ? (v as Obj) : {});

/**
 * An event in 4.14's form (what its server sends: resource/task.py, run.py, event.py, websockets.py), or null when
 * 4.x has no such event (Federa's `task_created` and `run_log_update`, 3.3–3.5's `container_failed`). Events not
 * named here read the same on both surfaces (`message`, `node-online`, `node-offline`, `expired_token`).
 */
function fourArgs(
  event: string,
  args: readonly unknown[],
  parentOf: (task: number) => Promise<number | null>,
): readonly unknown[] | Promise<readonly unknown[]> | null {
  const [first] = args;
  const p = obj(first);
  switch (event) {
    case 'new_task':
      return parentOf(first as number).then((parent_id) => [{ id: first, parent_id }]);
    case 'status_update':
      return [{ run_id: p.result_id }];
    case 'algorithm_status_change':
      return [
        {
          status: p.status,
          run_id: p.result_id,
          task_id: p.task_id,
          job_id: p.run_id,
          collaboration_id: p.collaboration_id,
          node_id: p.node_id,
          organization_id: p.organization_id,
          parent_id: p.parent_id,
        },
      ];
    case 'kill_containers':
      if (!Array.isArray(p.kill_list)) return args;
      return [
        {
          kill_list: p.kill_list.map((k) => {
            const e = obj(k);
            return { task_id: e.task_id, run_id: e.result_id, organization_id: e.organization_id };
          }),
          collaboration_id: p.collaboration_id,
        },
      ];
    case 'task_created':
    case 'run_log_update':
    case 'container_failed':
      return null;
    default:
      return args;
  }
}

/**
 * Sends `event` to `rooms` as the 3.x surface reads it, and to their 4.x twins as 4.x reads it. `ctx` finds a new
 * task's parent for 4.x's `new_task` (sent once found; without `ctx`, or when the lookup fails, as null).
 */
export function emitToSurfaces(
  nsp: Namespace,
  rooms: string | readonly string[],
  event: string,
  args: readonly unknown[],
  ctx?: AppContext,
): void {
  const list = typeof rooms === 'string' ? [rooms] : [...rooms];
  if (list.length === 0) return;
  nsp.to(list).emit(event, ...args);
  const parentOf = async (task: number): Promise<number | null> => {
    if (!ctx) return null;
    return (await findTask(ctx.dbh.db, task))?.parent_id ?? null;
  };
  const four = fourArgs(event, args, parentOf);
  if (four === null) return;
  const twins = list.map(v4Room);
  if (!(four instanceof Promise)) {
    nsp.to(twins).emit(event, ...four);
    return;
  }
  void four
    .catch((): readonly unknown[] => [{ id: args[0], parent_id: null }])
    .then((a) => nsp.to(twins).emit(event, ...a));
}
