import { mkdirSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import {
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  sql,
  type SqliteDatabase,
  type SqliteStatement,
} from 'kysely';
import SQLite from 'better-sqlite3';
import type { Database } from './schema.js';
import { FederaMigrations } from './migrations/index.js';
import { RenewablePool, type PoolLog } from './renewable-pool.js';

export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseTarget {
  dialect: DialectName;
  /** SQLite file path (or `:memory:`) or PostgreSQL connection string. */
  location: string;
}

/** A database URI problem, reported at start with the URI's scheme (never its password). */
export class DatabaseUriError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUriError';
  }
}

/**
 * Parses the configuration's `uri` (SQLAlchemy style, as vantage6): `sqlite:///relative.sqlite` is relative to
 * `dataDir`, `sqlite:////abs/path.sqlite` is absolute, `sqlite://` or `sqlite:///:memory:` is in memory;
 * `postgresql://…` (also `postgresql+psycopg2://…`, `postgres://…`) is PostgreSQL.
 */
export function parseDatabaseUri(uri: string, dataDir: string): DatabaseTarget {
  if (uri.startsWith('sqlite:')) {
    const rest = uri.slice('sqlite:'.length);
    if (rest === '' || rest === '//' || rest === '///:memory:' || rest === '//:memory:')
      return { dialect: 'sqlite', location: ':memory:' };
    if (!rest.startsWith('///'))
      throw new DatabaseUriError(`the SQLite URI must look like sqlite:///file.sqlite, got '${uri}'`);
    const path = rest.slice(3);
    return { dialect: 'sqlite', location: isAbsolute(path) ? path : resolve(dataDir, path) };
  }
  const m = /^(postgres|postgresql)(\+[a-z0-9]+)?:\/\//i.exec(uri);
  if (m) return { dialect: 'postgres', location: uri.replace(/^[^:]+:\/\//, 'postgresql://') };
  const scheme = uri.split(':')[0] ?? '';
  throw new DatabaseUriError(`unsupported database URI scheme '${scheme}'; use sqlite:/// or postgresql://`);
}

export interface DatabaseOptions {
  /**
   * PostgreSQL: a query without an answer after this long fails instead of waiting forever (a connection a
   * firewall dropped silently never answers).
   * @default 30000
   */
  queryTimeoutMs?: number;
  /**
   * PostgreSQL: how long opening a connection may take before the request answers 503.
   * @default 10000
   */
  connectTimeoutMs?: number;
  /**
   * Shortest time between two pool replacements by {@link DatabaseHandle.repair} (`/health/fix`).
   * @default 30000
   */
  repairIntervalMs?: number;
  /** Where pool faults are reported. */
  log?: PoolLog;
}

/** What {@link DatabaseHandle.repair} did. */
export interface RepairOutcome {
  /** Does the database answer now? */
  database: boolean;
  /** Was the connection pool replaced by this call? */
  replaced: boolean;
  /** Pool replacements since the server started. */
  resets: number;
  /** When the pool was broken but replaced too recently: seconds until a replacement is allowed again. */
  retryAfterSeconds?: number;
}

/**
 * Tells whether the database may have changed since an earlier look. `now()` returns a number that moves when
 * this process ran a statement that writes, or when another connection (another process on the same SQLite file,
 * `vserver-local import`, the `sqlite3` shell) committed a change (SQLite's `PRAGMA data_version`). The read cache
 * keeps an answer only as long as this number stays the same (see http/read-cache.ts).
 */
export class ChangeClock {
  #count = 0;
  #dataVersion: unknown;
  #probe: SQLite.Statement | null = null;

  /** Watches a (new) connection; its `data_version` starts afresh, so the clock moves. */
  attach(database: SQLite.Database): void {
    this.#probe = database.prepare('PRAGMA data_version').pluck();
    this.#dataVersion = undefined;
    this.#count += 1;
  }

  /** Counts a write of this process. */
  wrote(): void {
    this.#count += 1;
  }

  now(): number {
    const dataVersion = this.#probe?.get();
    if (dataVersion !== this.#dataVersion) {
      this.#dataVersion = dataVersion;
      this.#count += 1;
    }
    return this.#count;
  }
}

/** A statement that writes, as Kysely's SQLite driver uses it, counting each run on the clock. */
function counted(statement: SQLite.Statement, clock: ChangeClock): SqliteStatement {
  return {
    reader: statement.reader,
    all(parameters) {
      try {
        return statement.all(parameters);
      } finally {
        clock.wrote();
      }
    },
    run(parameters) {
      try {
        return statement.run(parameters);
      } finally {
        clock.wrote();
      }
    },
    iterate(parameters) {
      clock.wrote();
      return statement.iterate(parameters);
    },
  };
}

/**
 * better-sqlite3 compiles a statement on every `prepare`; Kysely prepares each query anew. Keeping the compiled
 * statements by SQL text (queries are parameterized, so the set of texts is small) saves that work per query.
 * Statements that write are counted on the clock.
 */
function withStatementCache(database: SQLite.Database, clock: ChangeClock): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  clock.attach(database);
  return {
    prepare(text: string): SqliteStatement {
      let statement = statements.get(text);
      if (!statement) {
        if (statements.size >= 1000) statements.clear();
        const compiled = database.prepare(text);
        statement = compiled.readonly ? compiled : counted(compiled, clock);
        statements.set(text, statement);
      }
      return statement;
    },
    close: () => database.close(),
  };
}

const createKysely = (
  target: DatabaseTarget,
  options: DatabaseOptions,
  clock: ChangeClock,
): { db: Kysely<Database>; pool: RenewablePool | null } => {
  if (target.dialect === 'sqlite') {
    if (target.location !== ':memory:') mkdirSync(dirname(target.location), { recursive: true });
    const database = new SQLite(target.location);
    database.pragma('journal_mode = WAL');
    database.pragma('foreign_keys = ON');
    database.pragma('busy_timeout = 5000');
    database.pragma('synchronous = NORMAL');
    return {
      db: new Kysely<Database>({
        dialect: new SqliteDialect({ database: withStatementCache(database, clock) }),
      }),
      pool: null,
    };
  }
  const pool = new RenewablePool(
    {
      connectionString: target.location,
      max: 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      query_timeout: options.queryTimeoutMs ?? 30_000,
      keepAlive: true,
    },
    options.log,
  );
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), pool };
};

/** Resolves with the promise's value, or rejects once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer in time')), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The server's handle on its database. Repositories receive `handle.db`, one Kysely instance for the server's
 * life (PostgreSQL). `/health/fix` calls {@link repair}, which replaces the connection pool only when it does not
 * answer, at most once per `repairIntervalMs`, without interrupting queries under way (docs/reliability.md).
 */
export class DatabaseHandle {
  #db: Kysely<Database>;
  readonly #pool: RenewablePool | null;
  readonly target: DatabaseTarget;
  resets = 0;
  /**
   * SQLite: moves whenever the database may have changed. PostgreSQL: null (several instances may write to one
   * database, and nothing tells this process cheaply that another one did).
   */
  readonly changes: ChangeClock | null;
  readonly #clock: ChangeClock;

  readonly #options: DatabaseOptions;

  constructor(target: DatabaseTarget, options: DatabaseOptions = {}) {
    this.target = target;
    this.#options = options;
    this.#clock = new ChangeClock();
    this.changes = target.dialect === 'sqlite' ? this.#clock : null;
    const created = createKysely(target, options, this.#clock);
    this.#db = created.db;
    this.#pool = created.pool;
  }

  /** PostgreSQL: the connections of the current pool (for `/health` details). */
  poolStats(): { total: number; idle: number; waiting: number } | null {
    return this.#pool?.stats() ?? null;
  }

  get db(): Kysely<Database> {
    return this.#db;
  }

  get dialect(): DialectName {
    return this.target.dialect;
  }

  /** Runs the pending migrations. Throws with the failing migration's name. */
  async migrate(): Promise<void> {
    // Unordered: migrations written in parallel (0003 landing after 0004 ran somewhere) still apply.
    const migrator = new Migrator({
      db: this.#db,
      provider: new FederaMigrations(this.target.dialect),
      allowUnorderedMigrations: true,
    });
    const { error, results } = await migrator.migrateToLatest();
    if (error) {
      const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
      throw new Error(`database migration '${failed}' failed`, { cause: error });
    }
  }

  /** True when a trivial query succeeds within `timeoutMs`. */
  async ping(timeoutMs = 5_000): Promise<boolean> {
    try {
      await within(sql`SELECT 1`.execute(this.#db), timeoutMs);
      return true;
    } catch {
      return false;
    }
  }

  #lastRepair = 0;
  #repairing: Promise<RepairOutcome> | null = null;

  /**
   * Replaces the connection pool when it is truly broken: only when a trivial query gets no answer within 2 s
   * while no other query got one either (a busy pool is left alone), and at most once per `repairIntervalMs` (calls in between only report). Concurrent calls share one attempt.
   * Queries under way finish on their old connections. SQLite: the file is reopened only when it does not
   * answer (a database in memory is never reopened, that would lose it).
   */
  repair(): Promise<RepairOutcome> {
    this.#repairing ??= this.#repair().finally(() => (this.#repairing = null));
    return this.#repairing;
  }

  async #repair(): Promise<RepairOutcome> {
    const started = Date.now();
    if (await this.ping(2_000)) return { database: true, replaced: false, resets: this.resets };
    // No answer in time, but other queries got theirs meanwhile: the pool is busy, not broken.
    if (this.#pool && this.#pool.lastAnswer >= started)
      return { database: true, replaced: false, resets: this.resets };
    const wait = this.#lastRepair + (this.#options.repairIntervalMs ?? 30_000) - Date.now();
    const memory = this.target.dialect === 'sqlite' && this.target.location === ':memory:';
    if (wait > 0 || memory) {
      return {
        database: false,
        replaced: false,
        resets: this.resets,
        ...(memory ? {} : { retryAfterSeconds: Math.ceil(wait / 1000) }),
      };
    }
    this.#lastRepair = Date.now();
    this.resets += 1;
    if (this.#pool) this.#pool.renew();
    else {
      const old = this.#db;
      this.#db = createKysely(this.target, this.#options, this.#clock).db;
      old.destroy().catch(() => undefined);
    }
    return { database: await this.ping(), replaced: true, resets: this.resets };
  }

  async close(): Promise<void> {
    await this.#db.destroy();
  }
}
