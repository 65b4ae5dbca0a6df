import type { ClockReading, ReadClock } from '../db/change-clock.js';
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

interface Kept<T> {
  value: T;
  reading: ClockReading;
}

/**
 * Answers of authenticated GET requests, and the callers tokens name, kept while the database stays unchanged.
 *
 * Every entry belongs to the reading of the database's {@link ReadClock} taken before the answer was computed. A
 * request takes a reading first ({@link refresh}) and is given only entries of that very reading; as soon as a
 * reading differs (any write of this process, a commit by another connection or, on PostgreSQL, by another
 * instance), everything is dropped, so an answer is never older than the data it shows. A role change, a new task,
 * a node going offline: the next request computes afresh. Entries are keyed by the bearer token and the URL, so
 * nobody ever receives an answer computed for someone else's permissions. A kept answer went out once after the
 * full authentication and the policy's checks at the same state of the database, so it is given again without
 * them, but only until its token expires; `last_seen` is still recorded.
 *
 * Callers are kept the same way, except where the clock has a second reading for the changes that may change a
 * caller (SQLite, {@link ReadClock.callers}): there a user's or node's caller outlives the tasks posted and the
 * runs reported meanwhile, and goes at the first change of anything else (a role, a rule, a session, a membership,
 * another connection's commit).
 *
 * SQLite's clock is read in memory; PostgreSQL's is the cluster's transaction snapshot, one trivial query per
 * request, which every instance sharing the database sees alike (db/change-clock.ts).
 */
export class ReadCache {
  readonly #clock: ReadClock;
  readonly #maxBytes: number;
  #reading: ClockReading = Number.NaN;
  #bytes = 0;
  readonly #answers = new Map<string, Kept<CachedAnswer>>();
  readonly #callers = new Map<string, Kept<Caller>>();
  /** Counters for the logs and the benchmark. */
  readonly stats = { hits: 0, stored: 0, cleared: 0, callerHits: 0 };

  constructor(clock: ReadClock, maxBytes: number) {
    this.#clock = clock;
    this.#maxBytes = maxBytes;
  }

  /**
   * Reads the clock now (a promise on PostgreSQL). Entries of another reading are dropped. Take it before the
   * queries of a request: what they see is at least as new as the reading.
   */
  refresh(): ClockReading | Promise<ClockReading> {
    const now = this.#clock.now();
    return typeof now === 'object' ? now.then((r) => this.#observe(r)) : this.#observe(now);
  }

  /** Whether a reading costs a round trip to the database (db/change-clock.ts `remote`). */
  get remote(): boolean {
    return this.#clock.remote;
  }

  /**
   * Takes a reading the request got with its first query (PostgreSQL's snapshot read beside the caller,
   * auth/authenticate.ts), as {@link refresh} does with one it reads itself.
   */
  observe(reading: ClockReading): ClockReading {
    return this.#observe(reading);
  }

  #observe(now: ClockReading): ClockReading {
    if (now !== this.#reading) {
      if (this.#answers.size > 0) this.stats.cleared += 1;
      this.#answers.clear();
      // With a clock of its own, a kept caller is checked against it when it is asked for (callerReading).
      if (!this.#clock.callers) this.#callers.clear();
      this.#bytes = 0;
      this.#reading = now;
    }
    return now;
  }

  /**
   * The reading a token's caller is kept by, `reading` being the request's and `kind` the token's caller kind:
   * for a user or a node, the clock of the changes that may change a caller where there is one (SQLite: a task
   * posted or a run reported keeps it); for a container, whose caller depends on its run, `reading` itself.
   */
  callerReading(kind: string, reading: ClockReading): ClockReading {
    return this.#onCallersClock(kind) ? (this.#clock.callers?.(reading) ?? reading) : reading;
  }

  #onCallersClock(kind: string): boolean {
    return this.#clock.callers !== undefined && kind !== 'container';
  }

  /**
   * This instance has (probably) changed the database: what is kept can no longer be given (the next reading will
   * tell anyway; on PostgreSQL this spares the next requests a look at the clock that would only find it moved).
   */
  changed(): void {
    if (this.#answers.size > 0) this.stats.cleared += 1;
    this.#answers.clear();
    if (!this.#clock.callers) this.#callers.clear();
    this.#bytes = 0;
  }

  /** Whether an answer is kept for `key` (of the last reading seen; it may be out of date by now). */
  holds(key: string): boolean {
    return this.#answers.has(key);
  }

  /** The answer kept for `key` at exactly `reading` (a reading the request took itself). */
  answer(key: string, reading: ClockReading): CachedAnswer | undefined {
    const hit = this.#answers.get(key);
    if (!hit || hit.reading !== reading) return undefined;
    this.stats.hits += 1;
    return hit.value;
  }

  /**
   * Keeps an answer computed after the clock read `reading`; dropped when the clock has moved since (known
   * without a round trip: SQLite's clock, or a later request's reading).
   */
  keepAnswer(key: string, reading: ClockReading, answer: CachedAnswer): void {
    if (!this.#current(reading) || answer.body.length > this.#maxBytes / 8) return;
    const earlier = this.#answers.get(key);
    if (earlier) {
      this.#answers.delete(key);
      this.#bytes -= earlier.value.body.length + key.length;
    }
    this.#bytes += answer.body.length + key.length;
    // Oldest first out: a Map iterates in insertion order.
    for (const [oldKey, old] of this.#answers) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#answers.delete(oldKey);
      this.#bytes -= old.value.body.length + oldKey.length;
    }
    this.#answers.set(key, { value: answer, reading });
    this.stats.stored += 1;
  }

  /** The caller kept for `token` at exactly `reading` ({@link callerReading}). */
  caller(token: string, reading: ClockReading): Caller | undefined {
    const kept = this.#callers.get(token);
    if (!kept || kept.reading !== reading) return undefined;
    this.stats.callerHits += 1;
    return kept.value;
  }

  /** Keeps a caller loaded after {@link callerReading} gave `reading`, unless that reading has moved since. */
  keepCaller(token: string, reading: ClockReading, caller: Caller): void {
    // What this process knows suffices (db/change-clock.ts `peek`): another process's commit since `reading`
    // leaves the caller under a reading no later request takes.
    const current = this.#onCallersClock(caller.kind)
      ? this.#clock.callers?.(this.#clock.peek()) === reading
      : this.#current(reading);
    if (!current) return;
    if (this.#callers.size >= 10_000) this.#callers.clear();
    this.#callers.set(token, { value: caller, reading });
  }

  #current(reading: ClockReading): boolean {
    const peeked = this.#clock.peek();
    if (peeked !== undefined) this.#observe(peeked);
    return this.#reading === reading;
  }
}
