import { sql, type Kysely } from 'kysely';
import type SQLite from 'better-sqlite3';
import type { Database } from './schema.js';

/** A reading of a {@link ReadClock}: two equal readings mean that the database did not change in between. */
export type ClockReading = number | string;

/**
 * Tells whether the database may have changed since an earlier look. The read cache (http/read-cache.ts) keeps
 * an answer only while the reading stays the same.
 */
export interface ReadClock {
  /** The reading now. */
  now(): ClockReading | Promise<ClockReading>;
  /**
   * The reading as far as this process knows without a look at the database: its own writes count, another
   * process's commit is not seen until the next {@link now}. Undefined when only a round trip could tell.
   *
   * Enough to decide whether to keep what was computed after a reading (http/read-cache.ts): an answer or caller
   * computed after `now()` gave R shows the database at R or later, so keeping it under R can only give a later
   * request at R something newer; a request that took a reading since another process's commit has another one.
   */
  peek(): ClockReading | undefined;
  /**
   * A second reading that moves only on changes that may change a caller (who a token's user or node is, and what
   * they may do): every change but those of tasks, runs and presence. SQLite only; without it, callers are kept by
   * `now()` like answers. `at`: a reading of this clock; while it is still the latest one, the callers' reading
   * that goes with it, without a second look at the database (a request looks once, docs/performance.md).
   */
  callers?(at?: ClockReading): ClockReading;
  /**
   * Whether a reading costs a round trip to the database (PostgreSQL): a request then reads the clock in the same
   * query as its caller (auth/authenticate.ts), and requests that need no reading take none.
   */
  readonly remote: boolean;
}

/**
 * SQLite: `now()` returns a number that moves when this process ran a statement that writes, or when another
 * connection (another process on the same SQLite file, `vserver-local import`, the `sqlite3` shell) committed a
 * change (SQLite's `PRAGMA data_version`).
 */
export class ChangeClock implements ReadClock {
  readonly remote = false;
  #count = 0;
  /** Moves with `#count`, but not for this process's writes that cannot change a caller. */
  #callers = 0;
  #dataVersion: unknown;
  #probe: SQLite.Statement | null = null;

  /** Watches a (new) connection; its `data_version` starts afresh, so the clock moves. */
  attach(database: SQLite.Database): void {
    this.#probe = database.prepare('PRAGMA data_version').pluck();
    this.#dataVersion = undefined;
    this.#count += 1;
    this.#callers += 1;
  }

  /**
   * Counts a write of this process; `callerNeutral` when the statement cannot change a caller
   * (db/statement-cache.ts `isCallerNeutral`).
   */
  wrote(callerNeutral = false): void {
    this.#count += 1;
    if (!callerNeutral) this.#callers += 1;
  }

  now(): number {
    const dataVersion = this.#probe?.get();
    if (dataVersion !== this.#dataVersion) {
      // Another connection's commit: what it changed is unknown, so both readings move.
      this.#dataVersion = dataVersion;
      this.#count += 1;
      this.#callers += 1;
    }
    return this.#count;
  }

  callers(at?: ClockReading): number {
    if (at !== this.#count) this.now();
    return this.#callers;
  }

  peek(): number {
    return this.#count;
  }
}

/**
 * PostgreSQL: the reading is the database cluster's transaction snapshot (`pg_current_snapshot()`: the oldest
 * transaction still running, the one after the newest finished, and the ones running in between). It changes the
 * moment any transaction that wrote commits or rolls back, whichever process or instance ran it (another Federa
 * instance, `psql`, an import), and a transaction that commits is in it until its commit is visible to every
 * later query. So a reading taken before a request's queries and found again unchanged later proves that nothing
 * was committed in between, across instances, with no message to carry and nothing to lose (docs/scaling.md,
 * "The read cache on several instances"). Costs one trivial query per reading.
 */
/** The cluster's transaction snapshot as text: PostgreSQL's reading, on its own or beside a query. */
const SNAPSHOT = sql<string>`pg_current_snapshot()::text`;

export class SnapshotClock implements ReadClock {
  readonly remote = true;
  readonly #db: () => Kysely<Database>;

  constructor(db: () => Kysely<Database>) {
    this.#db = db;
  }

  /** The reading as a column of another query (`reading`), taken with that query's own snapshot. */
  static readonly column = SNAPSHOT.as('reading');

  async now(): Promise<string> {
    const { rows } = await sql<{ s: string }>`SELECT ${SNAPSHOT} AS s`.execute(this.#db());
    const reading = rows[0]?.s;
    if (typeof reading !== 'string') throw new Error('pg_current_snapshot() gave no answer');
    return reading;
  }

  peek(): undefined {
    return undefined;
  }
}
