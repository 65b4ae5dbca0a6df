import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { markOffline, markOnline } from '../repositories/presence.js';
import type { EndReason } from '../repositories/node-history.js';

type Kind = 'user' | 'node';

/**
 * Writes the online status of users and nodes in batches: the marks asked for within `delayMs` of the first one
 * (0: within the same turn of the event loop, so that a busy server writes more at a time and an idle one at once)
 * go to the database together (one transaction per kind and direction), and each caller's promise resolves once its
 * mark is written. A reconnect storm of N nodes or their pings then costs a few writes a second, not N (each write
 * also empties the read cache of a SQLite server). A later mark of the same identity replaces an earlier one still
 * waiting; the caller ({@link Presence}) runs the work of one identity one step at a time, so the order of its
 * marks is kept. A node's offline mark carries why (the end of its online period, repositories/node-history.ts).
 */
export class PresenceWrites {
  readonly #db: () => Kysely<Database>;
  readonly #delayMs: number;
  /** `kind:id` → online (null) or offline for a reason. */
  #pending = new Map<string, EndReason | null>();
  /** Each resolved with node id → the online period its offline mark ended. */
  #waiters: { resolve(ended: Map<number, number>): void; reject(error: unknown): void }[] = [];
  #scheduled = false;

  constructor(db: () => Kysely<Database>, delayMs: number) {
    this.#db = db;
    this.#delayMs = delayMs;
  }

  async online(kind: Kind, id: number): Promise<void> {
    await this.#mark(kind, id, null);
  }

  /** Answers the id of the online period the mark ended (nodes), if one was open. */
  async offline(kind: Kind, id: number, reason: EndReason = 'disconnected'): Promise<number | undefined> {
    const ended = await this.#mark(kind, id, reason);
    return kind === 'node' ? ended.get(id) : undefined;
  }

  #mark(kind: Kind, id: number, offline: EndReason | null): Promise<Map<number, number>> {
    const key = `${kind}:${id}`;
    this.#pending.delete(key);
    this.#pending.set(key, offline);
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
    const on = { user: [] as number[], node: [] as number[] };
    const off = { user: new Map<EndReason, number[]>(), node: new Map<EndReason, number[]>() };
    for (const [key, reason] of pending) {
      const [kind, id] = key.split(':') as [Kind, string];
      if (reason === null) on[kind].push(Number(id));
      else {
        const ids = off[kind].get(reason) ?? [];
        ids.push(Number(id));
        off[kind].set(reason, ids);
      }
    }
    try {
      const db = this.#db();
      const ended = new Map<number, number>();
      for (const kind of ['node', 'user'] as const) {
        await markOnline(db, kind, on[kind]);
        for (const [reason, ids] of off[kind])
          for (const [node, period] of await markOffline(db, kind, ids, reason)) ended.set(node, period);
      }
      for (const w of waiters) w.resolve(ended);
    } catch (error) {
      for (const w of waiters) w.reject(error);
    }
  }
}
