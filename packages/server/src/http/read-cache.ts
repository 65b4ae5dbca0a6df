import type { ChangeClock } from '../db/change-clock.js';
import type { Caller } from '../auth/caller.js';
import type { CallerKind } from '../auth/policy.js';

/** A GET answer as it went out: its headers (without CORS and length) and its body, and whom it was for. */
export interface CachedAnswer {
  headers: Record<string, string | number | string[]>;
  body: Buffer;
  caller: { kind: CallerKind; id: number };
  /** The token's expiry (ms since the epoch): from then on the request is authenticated again, and refused. */
  until: number;
}

/**
 * Answers of authenticated GET requests, and the callers tokens name, kept while the database stays unchanged.
 *
 * Every entry belongs to one reading of the database's {@link ChangeClock}: as soon as the clock moves (any
 * write of this process, or a commit by another connection), everything is dropped, so an answer is never older
 * than the data it shows. A role change, a new task, a node going offline: the next request computes afresh.
 * Entries are keyed by the bearer token and the URL, so nobody ever receives an answer computed for someone
 * else's permissions. A kept answer went out once after the full authentication and the policy's checks at the
 * same state of the database, so it is given again without them, but only until its token expires; `last_seen`
 * is still recorded.
 *
 * Only SQLite databases have a clock (one file, and `data_version` tells of other writers); on PostgreSQL, where
 * several instances may share the database, the server runs without this cache.
 */
export class ReadCache {
  readonly #clock: ChangeClock;
  readonly #maxBytes: number;
  #reading = Number.NaN;
  #bytes = 0;
  readonly #answers = new Map<string, CachedAnswer>();
  readonly #callers = new Map<string, Caller>();
  /** Counters for the logs and the benchmark. */
  readonly stats = { hits: 0, stored: 0, cleared: 0 };

  constructor(clock: ChangeClock, maxBytes: number) {
    this.#clock = clock;
    this.#maxBytes = maxBytes;
  }

  /** The clock's reading now; entries of an earlier reading are dropped. */
  reading(): number {
    const now = this.#clock.now();
    if (now !== this.#reading) {
      if (this.#answers.size > 0 || this.#callers.size > 0) this.stats.cleared += 1;
      this.#answers.clear();
      this.#callers.clear();
      this.#bytes = 0;
      this.#reading = now;
    }
    return now;
  }

  answer(key: string): CachedAnswer | undefined {
    this.reading();
    const hit = this.#answers.get(key);
    if (hit) this.stats.hits += 1;
    return hit;
  }

  /** Keeps an answer computed while the clock read `reading`; an answer computed across a change is dropped. */
  keepAnswer(key: string, reading: number, answer: CachedAnswer): void {
    if (this.reading() !== reading || answer.body.length > this.#maxBytes / 8) return;
    const earlier = this.#answers.get(key);
    if (earlier) {
      this.#answers.delete(key);
      this.#bytes -= earlier.body.length + key.length;
    }
    this.#bytes += answer.body.length + key.length;
    // Oldest first out: a Map iterates in insertion order.
    for (const [oldKey, old] of this.#answers) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#answers.delete(oldKey);
      this.#bytes -= old.body.length + oldKey.length;
    }
    this.#answers.set(key, answer);
    this.stats.stored += 1;
  }

  caller(token: string): Caller | undefined {
    this.reading();
    return this.#callers.get(token);
  }

  keepCaller(token: string, reading: number, caller: Caller): void {
    if (this.reading() !== reading) return;
    if (this.#callers.size >= 10_000) this.#callers.clear();
    this.#callers.set(token, caller);
  }
}
