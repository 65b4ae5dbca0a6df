import type { FastifyBaseLogger } from 'fastify';
import type { ServerConfig } from './config/schema.js';
import { DatabaseHandle } from './db/handle.js';
import { parseDatabaseUri } from './db/uri.js';
import { ReadCache } from './http/read-cache.js';
import { TokenService } from './auth/tokens.js';
import { References } from './http/references.js';
import { LoginThrottle } from './auth/login-throttle.js';
import { noEvents, type AppContext, type EventBus } from './context.js';
import type { Mailer } from './mail/mailer.js';
import type { SocketBroker } from './broker/socket-broker.js';
import { bootstrap, type BootstrapOutcome } from './db/bootstrap.js';
import { SERVER_VERSION } from './version.js';
import { isAbsolute, join, resolve } from 'node:path';
import { VpnService } from './vpn/vpn-service.js';
import { ServerAudit } from './audit/server-audit.js';
import { createResultStore } from './result-store/create-result-store.js';
import { ServerMetrics } from './metrics/server-metrics.js';
import { meteredResultStore } from './metrics/metered-result-store.js';
import { Tracing } from '@federa/common/tracing';

export interface ContextOptions {
  config: ServerConfig;
  /** Directory relative SQLite paths resolve against. */
  dataDir: string;
  log: FastifyBaseLogger;
  mailer?: Mailer | null;
  events?: EventBus;
  broker?: SocketBroker | null;
  /** The folder of the audit log; absent or null: no audit log (test apps that do not look at it). */
  auditDir?: string | null;
  /** Tracing to use instead of the one the `tracing` key makes (tests give one with an in-memory exporter). */
  tracing?: Tracing | null;
}

/** Connects the database, migrates and seeds it, and assembles everything the routes need. */
export async function createContext(
  options: ContextOptions,
): Promise<{ ctx: AppContext; seeded: BootstrapOutcome }> {
  const { config } = options;
  const dbh = new DatabaseHandle(parseDatabaseUri(config.uri, options.dataDir), {
    queryTimeoutMs: config.database.query_timeout_ms,
    preparedStatements: config.database.prepared_statements,
    connectTimeoutMs: config.database.connect_timeout_ms,
    repairIntervalMs: config.database.fix_interval_seconds * 1000,
    log: options.log,
  });
  let vpn: VpnService | null = null;
  let audit: ServerAudit | null = null;
  try {
    if (options.auditDir)
      audit = await ServerAudit.open({
        dir: options.auditDir,
        maxFileBytes: config.audit.max_file_mb * 1024 * 1024,
        sync: config.audit.fsync,
        log: options.log,
      });
    await dbh.migrate();
    const seeded = await bootstrap(dbh.db, config);
    if (config.vpn) {
      const dir = config.vpn.directory ?? join(options.dataDir, 'vpn');
      vpn = await VpnService.start(
        config.vpn,
        isAbsolute(dir) ? dir : resolve(options.dataDir, dir),
        options.log,
      );
    }
    // Before any request: the folder store moves outputs of its earlier layout into their runs' folders, once.
    const stored = createResultStore(config.result_store, options.dataDir, () => dbh.db);
    await stored.prepare();
    const openedAudit = audit;
    const metrics = config.metrics.enabled
      ? new ServerMetrics({
          db: () => dbh.db,
          ...(dbh.dialect === 'postgres' ? { pool: () => dbh.poolStats() } : {}),
          ...(openedAudit ? { audit: () => openedAudit.counts } : {}),
        })
      : null;
    const results = metrics ? meteredResultStore(stored, metrics) : stored;
    const accessHours = config.type === 'test' ? 24 : config.token_expires_hours;
    const ctx: AppContext = {
      config,
      dbh,
      tokens: new TokenService(config.jwt_secret_key, {
        accessSeconds: accessHours * 3600,
        refreshSeconds: Math.max(config.refresh_token_expires_hours, accessHours + 1) * 3600,
        resetSeconds: (config.smtp?.email_token_validity_minutes ?? 60) * 60,
      }),
      refs: new References(config.api_path),
      events: options.events ?? noEvents,
      mailer: options.mailer ?? null,
      broker: options.broker ?? null,
      throttle: new LoginThrottle(
        config.password_policy.max_failed_attempts_per_address,
        config.password_policy.address_window_minutes * 60_000,
      ),
      readCache:
        config.response_cache_mb > 0
          ? new ReadCache(dbh.changes, config.response_cache_mb * 1024 * 1024)
          : null,
      vpn,
      audit,
      results,
      metrics,
      tracing:
        options.tracing !== undefined
          ? options.tracing
          : Tracing.fromConfig(config.tracing, {
              serviceName: 'federa-server',
              serviceVersion: SERVER_VERSION,
              onExportError: (message) =>
                options.log.warn(
                  { event: 'tracing.export_failed', err: message },
                  'spans could not be sent to the tracing collector; they are dropped until it answers',
                ),
            }),
      log: options.log,
      version: SERVER_VERSION,
    };
    return { ctx, seeded };
  } catch (error) {
    await vpn?.close();
    await audit?.close();
    await dbh.close().catch(() => undefined);
    throw error;
  }
}
