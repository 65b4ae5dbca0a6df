import { Migrator, sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { FederaMigrations } from './migrations/index.js';
import type { RenewablePool } from './renewable-pool.js';
import { ChangeClock, SnapshotClock, type ReadClock } from './change-clock.js';
import { dialectFor } from './dialects/index.js';
import type { DatabaseOptions } from './options.js';
import type { DatabaseTarget, DialectName } from './uri.js';

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
   * Moves whenever the database may have changed: SQLite's is kept in memory, PostgreSQL's is the cluster's
   * transaction snapshot, which every instance sharing the database reads alike (change-clock.ts).
   */
  readonly changes: ReadClock;
  readonly #clock: ChangeClock;

  readonly #options: DatabaseOptions;

  constructor(target: DatabaseTarget, options: DatabaseOptions = {}) {
    this.target = target;
    this.#options = options;
    this.#clock = new ChangeClock();
    this.changes = target.dialect === 'sqlite' ? this.#clock : new SnapshotClock(() => this.#db);
    const created = dialectFor(target.dialect).open(target.location, options, this.#clock);
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
      // The administrator who starts the server reads this: say why (0014 names the nodes it cannot keep).
      const why = error instanceof Error ? error.message : String(error);
      throw new Error(`database migration '${failed}' failed: ${why}`, { cause: error });
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
      this.#db = dialectFor(this.target.dialect).open(this.target.location, this.#options, this.#clock).db;
      old.destroy().catch(() => undefined);
    }
    return { database: await this.ping(), replaced: true, resets: this.resets };
  }

  async close(): Promise<void> {
    await this.#db.destroy();
  }
}
