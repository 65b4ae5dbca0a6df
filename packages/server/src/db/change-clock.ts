import type SQLite from 'better-sqlite3';

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
