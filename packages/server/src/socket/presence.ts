import type { AppContext } from '../context.js';
import { markAllOffline } from '../repositories/presence.js';
import { reopenPeriod, type EndReason } from '../repositories/node-history.js';
import { PresenceWrites } from './presence-writes.js';
import { presenceRoom } from './rooms.js';
import type { SocketIdentity, TasksNamespace } from './types.js';

/**
 * Pings' marks asked for within this many milliseconds are written together ({@link PresenceWrites}); the marks of
 * connects and disconnects, within one turn of the event loop.
 */
const PING_BATCH_MS = 1000;

/**
 * Keeps the `status` of users and nodes in step with their live sockets.
 *
 * A node that restarts quickly opens its new socket before (or while) the server handles the disconnect of the
 * old one. So a disconnect marks the identity offline only when no other socket of it is left: every socket of an
 * identity is in its {@link presenceRoom}, and `fetchSockets()` on that room counts them (on every instance once a
 * socket.io adapter is installed). The work for one identity runs one task at a time on this instance, so a
 * connect's "online" can never be overtaken by an older disconnect's "offline"; across instances, a disconnect
 * checks again after writing "offline" and restores "online" when a socket appeared meanwhile, and with it the
 * node's online period it had ended (so that the node's history shows no outage that never was).
 */
export class Presence {
  readonly #queues = new Map<string, Promise<void>>();
  readonly #writes: PresenceWrites;
  readonly #pingWrites: PresenceWrites;

  constructor(
    private readonly ctx: AppContext,
    private readonly nsp: TasksNamespace,
  ) {
    this.#writes = new PresenceWrites(() => ctx.dbh.db, 0);
    this.#pingWrites = new PresenceWrites(() => ctx.dbh.db, PING_BATCH_MS);
  }

  /** Runs `task` after the earlier tasks of the same identity; errors are logged, never thrown. */
  run(identity: Pick<SocketIdentity, 'kind' | 'id'>, task: () => Promise<void>): Promise<void> {
    const key = `${identity.kind}:${identity.id}`;
    const previous = this.#queues.get(key) ?? Promise.resolve();
    const next = previous
      .then(task)
      .catch((error: unknown) =>
        this.ctx.log.error(
          { err: error, event: 'socket.presence_failed', [`${identity.kind}_id`]: identity.id },
          'socket bookkeeping failed',
        ),
      );
    this.#queues.set(key, next);
    void next.then(() => {
      if (this.#queues.get(key) === next) this.#queues.delete(key);
    });
    return next;
  }

  /** Resolves when every queued task has finished (used before the database closes). */
  async idle(): Promise<void> {
    while (this.#queues.size > 0) await Promise.all([...this.#queues.values()]);
  }

  /** Marks the identity online and refreshes `last_seen`. */
  async markOnline(identity: SocketIdentity): Promise<void> {
    await this.#writes.online(identity.kind, identity.id);
  }

  /** A node's `ping`: marks it online and refreshes `last_seen`, with the other pings of the same second. */
  async pinged(identity: SocketIdentity): Promise<void> {
    await this.#pingWrites.online(identity.kind, identity.id);
  }

  /** Number of live sockets of the identity other than `exceptSocketId`. */
  async otherSockets(identity: SocketIdentity, exceptSocketId: string): Promise<number> {
    const sockets = await this.nsp.in(presenceRoom(identity)).fetchSockets();
    return sockets.filter((s) => s.id !== exceptSocketId).length;
  }

  /**
   * After a socket of the identity closed: marks it offline (nodes: and deletes its shared configuration) unless
   * another socket of it is live; `reason` is why a node's online period ended. Returns true when it was marked
   * offline.
   */
  async settleAfterDisconnect(
    identity: SocketIdentity,
    socketId: string,
    reason: EndReason,
  ): Promise<boolean> {
    if ((await this.otherSockets(identity, socketId)) > 0) return false;
    const ended = await this.#writes.offline(identity.kind, identity.id, reason);
    // A socket of the same identity may have connected to another instance while we wrote.
    if ((await this.otherSockets(identity, socketId)) > 0) {
      if (ended !== undefined) await reopenPeriod(this.ctx.dbh.db, identity.id, ended);
      await this.markOnline(identity);
      return false;
    }
    return true;
  }

  /**
   * At the start of a single-instance server nobody is connected yet: statuses left `online` by a crash are stale.
   */
  async resetAll(): Promise<void> {
    await markAllOffline(this.ctx.dbh.db);
  }
}
