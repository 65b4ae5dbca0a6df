import pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { isStalePreparedStatement, StatementNames } from './statement-names.js';

/** Where the pool reports what it sees; the server passes its logger. */
export interface PoolLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

const CONNECTION_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'DB_SILENT',
  // PostgreSQL: admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

const CONNECTION_MESSAGES =
  /Connection terminated|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|connection is closed|Client was closed|Cannot use a pool after calling end/i;

/**
 * Every connection of the pool was busy for the whole `connect_timeout_ms`: the server is saturated, the
 * database is reachable. pg-pool says "timeout exceeded when trying to connect" for both; this error tells them
 * apart so that callers are not told the database is unreachable (docs/reliability.md).
 */
export class PoolBusyError extends Error {
  readonly code = 'POOL_BUSY';
  constructor() {
    super('no database connection came free in time');
    this.name = 'PoolBusyError';
  }
}

/**
 * Every connection of the pool was in use for the whole `connect_timeout_ms` and the database did not answer a
 * probe on a connection of its own either: the connections hang on a database that has gone silent (a cut cable, a
 * firewall dropping packets). Callers are told the database is unreachable, not that the server is busy.
 */
export class DatabaseSilentError extends Error {
  readonly code = 'DB_SILENT';
  constructor() {
    super('the database did not answer: every connection waits on it and a new one got no answer');
    this.name = 'DatabaseSilentError';
  }
}

/** True when an error (or its cause) is a {@link PoolBusyError}. */
export function isPoolBusy(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    if (e instanceof PoolBusyError) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** A promise with its resolver, resolved when the pool is renewed. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * True when an error says the database could not be reached (a refused, reset, silent or closed connection),
 * as opposed to an error of the query itself. Such requests answer 503 with `Retry-After` (docs/reliability.md).
 */
/**
 * True when the database could not store a write because its disk (or, for SQLite, its size limit) is full
 * (PostgreSQL `53100`, SQLite `SQLITE_FULL`): the request was not done, and may succeed once space is freed.
 */
export function isDiskFull(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const { code, cause } = e as { code?: unknown; cause?: unknown };
    if (code === '53100' || code === 'SQLITE_FULL') return true;
    e = cause;
  }
  return false;
}

export function isConnectionError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
    // SQLite: the file is locked for too long or cannot be read.
    if (typeof code === 'string' && /^SQLITE_(BUSY|CANTOPEN|IOERR)/.test(code)) return true;
    if (typeof message === 'string' && CONNECTION_MESSAGES.test(message)) return true;
    e = cause;
  }
  return false;
}

/**
 * The PostgreSQL connection pool behind the one Kysely instance of the server. Two things make it survive
 * database faults (docs/reliability.md, "Server and database faults"):
 *
 * - a connection whose query failed with a connection error (reset, terminated, no answer within
 *   `query_timeout`) is closed when released instead of being handed out again, so once the database is back
 *   new connections are opened on their own;
 * - {@link renew} puts a fresh `pg.Pool` in place for new queries while the old one is ended gracefully:
 *   connections busy with a query finish it (or fail on their own) before they close. The Kysely instance is
 *   never destroyed, so no request ever meets "driver has already been destroyed".
 */
export class RenewablePool implements PostgresPool {
  #pool: pg.Pool;
  readonly #make: () => pg.Pool;
  readonly #log: PoolLog | undefined;
  #idleErrors = 0;
  #lastReport = 0;
  #renewed = signal();
  readonly #max: number;
  /** Names of the queries kept prepared on each connection; null: every query runs unnamed. */
  readonly #names: StatementNames | null;
  /** When a query last got its answer (ms since the epoch): a pool that answers someone is busy, not broken. */
  lastAnswer = 0;
  readonly #config: pg.PoolConfig;
  /** The probe under way or just made ({@link #answers}), shared by the callers that wait meanwhile. */
  #probe: { at: number; answer: Promise<boolean> } | undefined;

  /** `preparedStatements`: keep the texts run again and again prepared on each connection (statement-names.ts). */
  constructor(config: pg.PoolConfig, log?: PoolLog, preparedStatements = true) {
    this.#log = log;
    this.#config = config;
    this.#names = preparedStatements ? new StatementNames() : null;
    this.#max = config.max ?? 10;
    this.#make = () => {
      const pool = new pg.Pool(config);
      // An idle connection that fails (reset by the network, database restarted) is dropped by pg-pool; the
      // error must not crash the process. Reported at most every 10 s with a count, not once per connection.
      pool.on('error', (error) => this.#idleError(error));
      return pool;
    };
    this.#pool = this.#make();
  }

  #idleError(error: Error): void {
    this.#idleErrors += 1;
    const now = Date.now();
    if (now - this.#lastReport < 10_000) return;
    this.#lastReport = now;
    this.#log?.warn(
      { event: 'db.idle_connection_lost', count: this.#idleErrors, err: { message: error.message } },
      'idle database connections were lost; new ones are opened when needed',
    );
    this.#idleErrors = 0;
  }

  /** A connection of the current pool. A caller still waiting for one when the pool is renewed gets one of the new pool. */
  async #client(): Promise<pg.PoolClient> {
    for (;;) {
      const pool = this.#pool;
      const renewed = this.#renewed.promise;
      const pending = this.#connect(pool);
      const first = await Promise.race([pending, renewed.then(() => null)]);
      if (first) return first;
      // The old pool would never serve this waiter: take one from the new pool, give the old one back.
      pending.then(
        (c) => c.release(),
        () => undefined,
      );
    }
  }

  /** A connection of `pool`; a time-out while all its connections were in use is a {@link PoolBusyError}. */
  async #connect(pool: pg.Pool): Promise<pg.PoolClient> {
    try {
      return await pool.connect();
    } catch (error) {
      const timedOut =
        error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message);
      if (timedOut && pool.totalCount >= this.#max && pool.idleCount === 0) {
        // All connections in use: saturated, or hanging on a database gone silent. Only the database can tell.
        const waited = this.#config.connectionTimeoutMillis ?? 0;
        if (Date.now() - this.lastAnswer <= waited || (await this.#answers())) throw new PoolBusyError();
        throw new DatabaseSilentError();
      }
      throw error;
    }
  }

  /**
   * Whether the database answers `SELECT 1` on a connection of its own, within the connect time-out (at most 5 s).
   * One probe at a time, its answer kept for a second: a crowd of waiters that time out together makes one.
   */
  #answers(): Promise<boolean> {
    const now = Date.now();
    if (this.#probe && now - this.#probe.at < 1000) return this.#probe.answer;
    const limit = Math.min(this.#config.connectionTimeoutMillis || 5000, 5000);
    const client = new pg.Client({ ...this.#config, connectionTimeoutMillis: limit, query_timeout: limit });
    client.on('error', () => undefined);
    const answer = client
      .connect()
      .then(() => client.query('SELECT 1'))
      .then(
        () => true,
        () => false,
      )
      .finally(() => {
        client.end().catch(() => undefined);
      });
    this.#probe = { at: now, answer };
    return answer;
  }

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.#client();
    let broken = false;
    const answered = (value: unknown) => {
      this.lastAnswer = Date.now();
      return value;
    };
    const failed = (error: unknown) => {
      if (isConnectionError(error)) broken = true;
      throw error;
    };
    // Kysely calls query(text, parameters).
    const query = ((text: string, parameters?: unknown[]) => {
      const name = this.#names?.nameOf(text, parameters?.length ?? 0);
      if (name === undefined) return client.query(text, parameters).then(answered, failed);
      return client.query({ name, text, values: parameters }).then(answered, (error: unknown) => {
        if (!isStalePreparedStatement(error)) return failed(error);
        // This connection's statement is of no use any more; the query runs unnamed, the connection is closed.
        broken = true;
        return client.query(text, parameters).then(answered, failed);
      });
    }) as PostgresPoolClient['query'];
    return {
      query,
      release: () => client.release(broken ? true : undefined),
    };
  }

  /** Connections of the current pool: total, idle and callers waiting for one. */
  stats(): { total: number; idle: number; waiting: number } {
    return {
      total: this.#pool.totalCount,
      idle: this.#pool.idleCount,
      waiting: this.#pool.waitingCount,
    };
  }

  /** New queries go to a fresh pool; the old one closes each connection once its query is done. */
  renew(): void {
    const old = this.#pool;
    this.#pool = this.#make();
    const renewed = this.#renewed;
    this.#renewed = signal();
    renewed.resolve();
    old.end().catch(() => undefined);
  }

  async end(): Promise<void> {
    await this.#pool.end();
  }
}
