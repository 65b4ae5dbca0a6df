import type { AppContext, IdentityChange } from '../context.js';
import { isWatchRoom, presenceRoom, sessionRoom, userRooms } from './rooms.js';
import { identityExists } from '../repositories/presence.js';
import { surfaceRooms } from './surfaces.js';
import { findSession } from '../repositories/session.js';
import type { SocketData, TasksNamespace } from './types.js';

/** What a re-check needs of a socket, local or on another instance (`fetchSockets()`). */
interface CheckedSocket {
  id: string;
  data: SocketData;
  rooms: Set<string>;
  join(room: string | string[]): unknown;
  leave(room: string): unknown;
  disconnect(close?: boolean): unknown;
}

/**
 * Keeps open sockets in line with what their tokens allow now (docs/security.md): a socket whose session ended
 * (password changed or reset, API key reset, refresh token reused, maximum lifetime) or whose user or node was
 * deleted is disconnected; a user's rooms follow their current rules. Changes made through this instance's routes
 * apply at once ({@link apply}); anything else (another instance without a broker, a direct database change) is
 * caught by the periodic {@link sweep}.
 */
export class SocketRecheck {
  readonly #ctx: AppContext;
  readonly #nsp: TasksNamespace;

  constructor(ctx: AppContext, nsp: TasksNamespace) {
    this.#ctx = ctx;
    this.#nsp = nsp;
  }

  /** Applies a change reported by a route; never throws (failures are logged). */
  apply(change: IdentityChange): Promise<void> {
    return this.#apply(change).catch((error: unknown) =>
      this.#ctx.log.error({ err: error, event: 'socket.recheck_failed', change }, 'socket re-check failed'),
    );
  }

  async #apply(change: IdentityChange): Promise<void> {
    if (change.what === 'ended') {
      const room = change.sid !== undefined ? sessionRoom(change.sid) : presenceRoom(change);
      this.#end(room);
      return;
    }
    const target =
      change.id === undefined
        ? this.#nsp
        : this.#nsp.in(presenceRoom(change as { kind: 'user'; id: number }));
    for (const socket of await target.fetchSockets()) await this.check(socket);
  }

  /** Tells the sockets of a room their token is no longer valid (a node then logs in again) and closes them. */
  #end(room: string): void {
    // Both generations of nodes: 3.3–3.5 handlers take one argument, 3.6+ handlers none.
    this.#nsp.to(room).emit('expired_token', '');
    this.#nsp.to(room).emit('expired_token');
    this.#nsp.in(room).disconnectSockets(true);
  }

  /** Re-checks every socket of this instance. */
  async sweep(): Promise<void> {
    try {
      for (const socket of await this.#nsp.local.fetchSockets()) await this.check(socket);
    } catch (error) {
      this.#ctx.log.error({ err: error, event: 'socket.sweep_failed' }, 'socket re-check sweep failed');
    }
  }

  /** Disconnects a socket whose session or identity is gone; moves a user's socket to the rooms it may see. */
  async check(socket: CheckedSocket): Promise<void> {
    const identity = socket.data.identity;
    if (!identity) return;
    if (!(await this.#stillValid(identity.kind, identity.id, socket.data.sid))) {
      this.#ctx.log.info(
        { event: 'socket.revoked', [`${identity.kind}_id`]: identity.id, socket_id: socket.id },
        'socket of an ended session or a deleted identity disconnected',
      );
      this.#end(socket.id);
      return;
    }
    if (identity.kind !== 'user') return;
    const wanted = new Set(surfaceRooms(socket.data.v4 === true, await userRooms(this.#ctx, identity)));
    const followsRules = (room: string): boolean => !room.startsWith('federa:') || isWatchRoom(room);
    for (const room of socket.rooms)
      if (room !== socket.id && followsRules(room) && !wanted.has(room)) socket.leave(room);
    const missing = [...wanted].filter((room) => !socket.rooms.has(room));
    if (missing.length > 0) socket.join(missing);
  }

  async #stillValid(kind: 'user' | 'node', id: number, sid: string | undefined): Promise<boolean> {
    if (sid === undefined) return false;
    const db = this.#ctx.dbh.db;
    const [session, subject] = await Promise.all([findSession(db, sid), identityExists(db, kind, id)]);
    return (
      subject &&
      session !== undefined &&
      session.kind === kind &&
      session.subject_id === id &&
      session.ended_at === null &&
      Date.parse(`${session.expires_at}Z`) > Date.now()
    );
  }
}
