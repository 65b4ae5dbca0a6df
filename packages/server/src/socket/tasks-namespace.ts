import {
  ADMISSION_HEADER,
  ADMISSION_RETRY_AFTER,
  isFailedRunStatus,
  SocketRooms,
  type AlgorithmStatusChangePayload,
  type NodePresencePayload,
} from '@federa/common';
import type { AppContext } from '../context.js';
import { hasSignedToken, identify } from './identify.js';
import { presenceRoom, roomsOf, sessionRoom, watchRooms } from './rooms.js';
import { nodeInfoRows } from './node-info.js';
import { replaceNodeConfig } from '../repositories/node.js';
import { endReasonOf } from '../repositories/node-history.js';
import { runWithTask } from '../repositories/result.js';
import { algorithmLogListener } from './algorithm-log.js';
import { receiveRunLog } from './run-log.js';
import type { Presence } from './presence.js';
import type { Namespace } from 'socket.io';
import { emitToSurfaces, isV4Session, surfaceRooms, v4Room } from './surfaces.js';
import type { Admission } from './admission.js';
import type { SocketIdentity, SocketRefusal, TasksNamespace, TasksSocket } from './types.js';

/** Longest client text (`message`, `error`) copied into the log. */
const MAX_LOGGED_TEXT = 500;

const toId = (value: unknown): number | null => {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : null;
};

const describe = (identity: SocketIdentity | null): Record<string, unknown> =>
  identity ? { [`${identity.kind}_id`]: identity.id } : { identity: null };

/**
 * Rooms whose watchers get "… joined/left room …" messages (3.7+: not `all_nodes`). The announcements go to the
 * users watching the room ({@link watchRooms}), not to its nodes (docs/socket-protocol.md#presence-announcements).
 */
const announced = (rooms: Iterable<string>, socketId: string): string[] =>
  [...rooms].filter((r) => r !== socketId && r !== SocketRooms.allNodes && !r.startsWith('federa:'));

/** Sends an event that reads the same on both surfaces to `rooms` and their 4.x twins (socket/surfaces.ts). */
function toBoth(
  nsp: TasksNamespace,
  rooms: string | string[],
  event: 'message' | 'node-online' | 'node-offline',
  arg: unknown,
): void {
  const list = typeof rooms === 'string' ? [rooms] : rooms;
  (nsp as unknown as Namespace).to([...list, ...list.map(v4Room)]).emit(event, arg);
}

/** The rooms a socket is in, as {@link roomsOf} names them (a 4.x socket's twins by their 3.x names). */
const protocolRooms = (socket: TasksSocket): string[] =>
  [...socket.rooms].map((r) => (r.startsWith(v4Room('')) ? r.slice(v4Room('').length) : r));

/**
 * Closes the connection of a socket refused `server_busy` once the refusal has gone out. A client that does not
 * say it honours the hint may not ask again: python-socketio 5.x (what vantage6 3.x nodes run), connected with
 * `wait=False`, drops a refused namespace while still counting itself connected, and retries only when its
 * connection drops. Closed, it reconnects on its own back-off (docs/socket-protocol.md#admission).
 */
function closeAfterRefusal(socket: TasksSocket): void {
  // The refusal is written on the next tick (socket.io's middleware); the connection closes once it has gone.
  setTimeout(() => socket.conn.close(), 50);
}

/**
 * Installs the protocol of namespace `/tasks` (docs/socket-protocol.md): the handshake
 * middleware, the rooms, the online status and the client events.
 */
export function installTasksNamespace(
  ctx: AppContext,
  nsp: TasksNamespace,
  presence: Presence,
  admission: Admission,
): void {
  // Admission: beyond `socket_max_pending` handshakes at a time, refused with a time to come back. Only handshakes
  // with a token this server signed are counted (docs/socket-protocol.md#admission).
  nsp.use((socket, next) => {
    void hasSignedToken(ctx, socket).then((signed) => {
      if (!signed) {
        next();
        return;
      }
      const answer = admission.enter(socket.id);
      if (answer.admitted) {
        socket.conn.once('close', () => admission.done(socket.id));
        next();
        return;
      }
      const busy: Error & { data?: SocketRefusal } = new Error(
        `server busy: connect again in ${answer.retryAfterMs} ms`,
      );
      busy.data = { code: 'server_busy', retry_after_ms: answer.retryAfterMs };
      next(busy);
      if (socket.handshake.headers[ADMISSION_HEADER] !== ADMISSION_RETRY_AFTER) closeAfterRefusal(socket);
    });
  });
  // Authentication: never refuses; a socket without identity is told `expired_token` once connected.
  nsp.use((socket, next) => {
    void identify(ctx, socket).then((outcome) => {
      socket.data.identity = outcome.identity;
      if (outcome.identity === null) socket.data.authProblem = outcome.problem;
      else if (outcome.sid !== undefined) {
        socket.data.sid = outcome.sid;
        if (isV4Session(outcome.sid)) socket.data.v4 = true;
      }
      next();
    });
  });

  nsp.on('connection', (socket: TasksSocket) => {
    const identity = socket.data.identity;
    if (identity !== null) {
      // Only identified sockets are heard: an anonymous one could fill the log (docs/security.md).
      socket.on('message', (text) =>
        ctx.log.info(
          { event: 'socket.message', ...describe(identity), text: String(text).slice(0, MAX_LOGGED_TEXT) },
          'socket message',
        ),
      );
      socket.on('error', (text: unknown) =>
        ctx.log.warn(
          {
            event: 'socket.client_error',
            ...describe(identity),
            text: (text instanceof Error ? text.message : String(text)).slice(0, MAX_LOGGED_TEXT),
          },
          'socket error',
        ),
      );
    }
    if (identity === null) {
      ctx.log.info(
        { event: 'socket.unauthenticated', reason: socket.data.authProblem, socket_id: socket.id },
        'socket without a valid token: sent expired_token',
      );
      admission.done(socket.id);
      void socket.join(socket.id);
      // Both generations of nodes: 3.3–3.5 handlers take one argument, 3.6+ handlers none.
      socket.emit('expired_token', '');
      socket.emit('expired_token');
      return;
    }
    void onIdentified(ctx, nsp, presence, socket, identity).finally(() => admission.done(socket.id));
  });
}

function onIdentified(
  ctx: AppContext,
  nsp: TasksNamespace,
  presence: Presence,
  socket: TasksSocket,
  identity: SocketIdentity,
): Promise<void> {
  // Joined at once, before anything awaits, so that a disconnect of an older socket of this identity sees it.
  void socket.join(presenceRoom(identity));
  if (socket.data.sid !== undefined) void socket.join(sessionRoom(socket.data.sid));
  const nodePayload: NodePresencePayload | null =
    identity.kind === 'node'
      ? { id: identity.id, name: identity.name, org_id: identity.organizationId }
      : null;
  let rooms: string[] = [];

  // Handlers are registered before anything awaits: a node emits `node_info_update` right after connecting.
  if (identity.kind === 'node') {
    socket.on(
      'algorithm_status_change',
      (report) => void relayStatusChange(ctx, nsp, identity, report, socket.data.v4 === true),
    );
    socket.on('container_failed', (report) => void relayContainerFailed(ctx, nsp, identity, report));
    socket.on('run_log', (batch, ack) => {
      void receiveRunLog(ctx, identity, batch).then((answer) => {
        if (typeof ack === 'function') ack(answer);
      });
    });
    if (socket.data.v4 === true) socket.on('algorithm_log', algorithmLogListener(ctx, identity));
    socket.on('node_info_update', (info) => {
      const rows = nodeInfoRows(info);
      if (rows === null) {
        ctx.log.warn(
          { event: 'socket.node_info_invalid', node_id: identity.id },
          'node_info_update without an object payload ignored',
        );
        return;
      }
      void presence.run(identity, () => replaceNodeConfig(ctx.dbh.db, identity.id, rows));
    });
  }
  socket.on('ping', () => void presence.run(identity, () => presence.pinged(identity)));

  socket.on('disconnecting', () => {
    const name = identity.name ?? `${identity.kind} ${identity.id}`;
    for (const room of announced(protocolRooms(socket), socket.id))
      toBoth(nsp, SocketRooms.watch(room), 'message', `${name} left room ${room}`);
  });
  socket.on('disconnect', (reason) => {
    ctx.log.info(
      { event: 'socket.disconnected', ...describe(identity), reason },
      `${identity.kind} ${identity.id} disconnected`,
    );
    void presence.run(identity, async () => {
      const offline = await presence.settleAfterDisconnect(identity, socket.id, endReasonOf(reason));
      if (offline && nodePayload && rooms.length > 0)
        toBoth(nsp, watchRooms(rooms), 'node-offline', nodePayload);
    });
  });

  return presence.run(identity, async () => {
    rooms = await roomsOf(ctx, identity);
    if (!socket.connected) return;
    // A user's socket also joins the watch rooms of its rooms, where it hears who joins and leaves them.
    const joined = identity.kind === 'user' ? [...rooms, ...watchRooms(rooms)] : rooms;
    await socket.join(surfaceRooms(socket.data.v4 === true, joined));
    await presence.markOnline(identity);
    const name = identity.name ?? `${identity.kind} ${identity.id}`;
    for (const room of announced(rooms, socket.id))
      toBoth(nsp, SocketRooms.watch(room), 'message', `${name} joined room ${room}`);
    if (nodePayload && rooms.length > 0) toBoth(nsp, watchRooms(rooms), 'node-online', nodePayload);
    ctx.log.info(
      { event: 'socket.connected', ...describe(identity), rooms },
      `${identity.kind} ${identity.id} connected`,
    );
  });
}

/** `algorithm_status_change` from a node: completed from the database and relayed to its collaboration. */
async function relayStatusChange(
  ctx: AppContext,
  nsp: TasksNamespace,
  node: Extract<SocketIdentity, { kind: 'node' }>,
  report: unknown,
  v4: boolean,
): Promise<void> {
  try {
    const r = (typeof report === 'object' && report !== null ? report : {}) as Record<string, unknown>;
    // A 4.x node names the run (Federa's result) `run_id`; a 3.x node names it `result_id` (`run_id` is its job).
    const resultId = toId(v4 ? r.run_id : r.result_id);
    if (resultId === null || typeof r.status !== 'string') {
      ctx.log.warn(
        { event: 'socket.status_change_invalid', node_id: node.id },
        'algorithm_status_change without result_id or status ignored',
      );
      return;
    }
    const row = await runWithTask(ctx.dbh.db, resultId);
    if (
      !row ||
      row.collaboration_id === null ||
      row.collaboration_id !== node.collaborationId ||
      row.organization_id !== node.organizationId
    ) {
      ctx.log.warn(
        { event: 'socket.status_change_refused', node_id: node.id, result_id: resultId },
        'algorithm_status_change for a result of another node ignored',
      );
      return;
    }
    const payload: AlgorithmStatusChangePayload = {
      status: r.status.slice(0, 100),
      result_id: row.id,
      task_id: row.task_id,
      run_id: row.run_id,
      collaboration_id: row.collaboration_id,
      node_id: node.id,
      organization_id: row.organization_id,
      parent_id: row.parent_id,
    };
    // A failure goes to every node of the collaboration as well: vantage6 3.x nodes log it for their administrator
    // (docs/socket-protocol.md#audiences). Failures are rare; the run's other changes concern its audience only.
    const audience = SocketRooms.audience(row.collaboration_id, [row.organization_id, row.initiator_id]);
    if (isFailedRunStatus(payload.status)) audience.push(SocketRooms.collaboration(row.collaboration_id));
    emitToSurfaces(nsp as unknown as Namespace, audience, 'algorithm_status_change', [payload]);
  } catch (error) {
    ctx.log.error(
      { err: error, event: 'socket.status_change_failed', node_id: node.id },
      'could not relay algorithm_status_change',
    );
  }
}

/** `container_failed` of 3.3–3.5 nodes: relayed as the run id to the collaboration. */
async function relayContainerFailed(
  ctx: AppContext,
  nsp: TasksNamespace,
  node: Extract<SocketIdentity, { kind: 'node' }>,
  report: unknown,
): Promise<void> {
  try {
    const resultId = toId((report as Record<string, unknown> | null)?.result_id);
    if (resultId === null) return;
    const row = await runWithTask(ctx.dbh.db, resultId);
    if (
      !row ||
      row.collaboration_id === null ||
      row.collaboration_id !== node.collaborationId ||
      row.organization_id !== node.organizationId
    )
      return;
    nsp.to(SocketRooms.collaboration(row.collaboration_id)).emit('container_failed', row.run_id);
  } catch (error) {
    ctx.log.error(
      { err: error, event: 'socket.container_failed_relay_failed', node_id: node.id },
      'could not relay container_failed',
    );
  }
}
