import type { PoolLog } from './renewable-pool.js';

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
  /**
   * PostgreSQL: keep the queries run again and again prepared on each connection (db/statement-names.ts); off
   * behind a pooler that moves a session between server connections.
   * @default true
   */
  preparedStatements?: boolean;
  /** Where pool faults are reported. */
  log?: PoolLog;
}
