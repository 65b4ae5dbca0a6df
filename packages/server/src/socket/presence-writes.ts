import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { markOffline, markOnline } from '../repositories/presence.js';

type Kind = 'user' | 'node';

/**
 * Writes the online status of users and nodes in batches: the marks asked for within `delayMs` of the first one
 * (0: within the same turn of the event loop, so that a busy server writes more at a time and an idle one at once)
 * go to the database together (one transaction per kind and direction), and each caller's promise resolves once its
 * mark is written. A reconnect storm of N nodes or their pings then costs a few writes a second, not N (each write
 * also empties the read cache of a SQLite server). A later mark of the same identity replaces an earlier one still
 * waiting; the caller ({@link Presence}) runs the work of one identity one step at a time, so the order of its
 * marks is kept.
 */
export class PresenceWrites {
  readonly #db: () => Kysely<Database>;
  readonly #delayMs: number;
  /** `kind:id` → whether it goes online (true) or offline. */
  #pending = new Map<string, boolean>();
  #waiters: { resolve(): void; reject(error: unknown): void }[] = [];
  #scheduled = false;

  constructor(db: () => Kysely<Database>, delayMs: number) {
    this.#db = db;
    this.#delayMs = delayMs;
  }

  online(kind: Kind, id: number): Promise<void> {
    return this.#mark(kind, id, true);
  }

  offline(kind: Kind, id: number): Promise<void> {
    return this.#mark(kind, id, false);
  }

  #mark(kind: Kind, id: number, online: boolean): Promise<void> {
    const key = `${kind}:${id}`;
    this.#pending.delete(key);
    this.#pending.set(key, online);
    if (!this.#scheduled) {
      this.#scheduled = true;
      const flush = (): void => void this.flush();
      if (this.#delayMs > 0) setTimeout(flush, this.#delayMs);
      else setImmediate(flush);
    }
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** Writes every waiting mark now. */
  async flush(): Promise<void> {
    this.#scheduled = false;
    const pending = this.#pending;
    const waiters = this.#waiters;
    if (waiters.length === 0) return;
    this.#pending = new Map();
    this.#waiters = [];
    const ids = {
      user: { on: [] as number[], off: [] as number[] },
      node: { on: [] as number[], off: [] as number[] },
    };
    for (const [key, online] of pending) {
      const [kind, id] = key.split(':') as [Kind, string];
      ids[kind][online ? 'on' : 'off'].push(Number(id));
    }
    try {
      const db = this.#db();
      for (const kind of ['node', 'user'] as const) {
        await markOnline(db, kind, ids[kind].on);
        await markOffline(db, kind, ids[kind].off);
      }
      for (const w of waiters) w.resolve();
    } catch (error) {
      for (const w of waiters) w.reject(error);
    }
  }
}
