import { dirname, isAbsolute, resolve } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { DestinationStream, Logger } from 'pino';
import { ConfigError, listenMetrics, type MetricsListener } from '@federa/common';
import { buildApp, type App } from './app.js';
import { serverDataDir } from './config/data-dir.js';
import { loadServerConfig, type LoadedServerConfig } from './config/load.js';
import type { AppContext } from './context.js';
import { createContext } from './create-context.js';
import { DatabaseUriError, parseDatabaseUri, type DialectName } from './db/uri.js';
import { createServerLogger, defaultLogDir, type ServerLogger } from './logging.js';
import { createMailer, type SmtpMailer } from './mail/smtp-mailer.js';
import { sweepResultStore } from './result-store/sweep.js';
import { SocketServer } from './socket/index.js';
import { createSocketBroker, RABBITMQ_NOT_USED_MESSAGE } from './socket/broker.js';
import type { SocketBroker } from './broker/socket-broker.js';
import { organizationsSharingAName } from './repositories/organization-names.js';
import { countSockets } from './metrics/socket-count.js';

/**
 * Connections the kernel keeps waiting to be accepted (capped by net.core.somaxconn). Node's default, 511, is
 * overrun when the nodes of a restarted server all return at once: the connections beyond it are dropped and their
 * clients try again only after TCP's 1, 3, 7, 15 s retransmissions (docs/performance.md, node-sockets).
 */
const LISTEN_BACKLOG = 4096;

export { serverDataDir };

/** How long stopping waits for connections (websockets above all) to end by themselves before cutting them. */
const CLOSE_GRACE_MS = 2000;

export interface StartServerOptions {
  /** The YAML configuration file. */
  configFile: string;
  /**
   * The environment of the file to run.
   * @default 'prod'
   */
  environment?: string;
  /** Listen address; overrides `ip` of the configuration. */
  ip?: string;
  /** Listen port (0: any free port); overrides `port` of the configuration. */
  port?: number;
  /**
   * Environment variables (`FEDERA_*`, `VANTAGE6_DB_URI`, `XDG_*`, `HOME`).
   * @default process.env
   */
  env?: NodeJS.ProcessEnv;
  /**
   * Where console logs go.
   * @default process.stdout
   */
  logStream?: DestinationStream;
  /**
   * Close the server gracefully on SIGINT and SIGTERM ({@link ServerHandle.closed} then resolves). The CLI sets it.
   * @default false
   */
  handleSignals?: boolean;
  /**
   * Where a generated root password is shown: the terminal only, never the logger, whose lines end up in log files
   * and in `vserver attach`.
   * @default process.stderr
   */
  terminal?: { write(text: string): unknown };
}

export interface ServerHandle {
  /** The server's root URL, e.g. `http://127.0.0.1:5000` (nodes' `server_url` + `port`; socket.io lives here). */
  url: string;
  /** The API's base URL, e.g. `http://127.0.0.1:5000/api`. */
  apiUrl: string;
  /** The port actually listened on. */
  port: number;
  /** Where Prometheus scrapes this server (docs/observability.md); null when the metrics are off. */
  metricsUrl: string | null;
  ctx: AppContext;
  app: App;
  sockets: SocketServer;
  /** Closes sockets (nodes see their connection close and reconnect later), the HTTP server and the database. */
  close(): Promise<void>;
  /** Resolves once the server has closed (through {@link close} or a signal). */
  closed: Promise<void>;
}

function serverLogDir(loaded: LoadedServerConfig, env: NodeJS.ProcessEnv): string {
  const configured = loaded.config.directories?.log;
  if (configured) return isAbsolute(configured) ? configured : resolve(dirname(loaded.file), configured);
  return defaultLogDir(env);
}

/** A URL host for an address: the wildcard addresses are reached through the loopback address. */
const urlHost = (ip: string): string => {
  if (ip === '0.0.0.0' || ip === '') return '127.0.0.1';
  if (ip === '::') return '[::1]';
  return ip.includes(':') ? `[${ip}]` : ip;
};

/**
 * Runs a Federa server: reads and validates the configuration (a {@link ConfigError} is thrown before anything
 * starts), opens logs and the database, seeds it, serves the API, `/apidocs` and socket.io on one port.
 */
/**
 * Names the organizations whose names differ only in case (a database made before names had to be unique):
 * nothing renames them behind anyone's back; a node policy naming one of them allows none of them.
 */
async function warnOfSharedOrganizationNames(ctx: AppContext, log: Logger): Promise<void> {
  for (const group of await organizationsSharingAName(ctx.dbh.db))
    log.warn(
      { event: 'organization.names_clash', organizations: group },
      `organizations ${group.map((o) => `${o.id} '${o.name}'`).join(', ')} have names that differ only in case: rename all but one (PATCH /organization/{id}); a node naming them in allowed_organizations allows none of them`,
    );
}

/** The one line that shows a generated root password (`vserver start` reads it from the container's output). */
export function rootPasswordLine(username: string, password: string): string {
  return `*** The root user '${username}' was created with the generated password: ${password} -- store it now and change it after logging in; it is shown only this once. ***`;
}

export async function startServer(options: StartServerOptions): Promise<ServerHandle> {
  const env = options.env ?? process.env;
  const loaded = loadServerConfig(options.configFile, options.environment ?? 'prod', env);
  const { config, file } = loaded;
  const dataDir = serverDataDir(loaded, env);
  let dialect: DialectName;
  try {
    dialect = parseDatabaseUri(config.uri, dataDir).dialect;
  } catch (error) {
    if (error instanceof DatabaseUriError) throw new ConfigError(file, error.message, 'uri');
    throw error;
  }
  const mailer: SmtpMailer | null = createMailer(config, file);
  mkdirSync(dataDir, { recursive: true });
  const logger: ServerLogger = createServerLogger({
    logging: config.logging,
    logDir: serverLogDir(loaded, env),
    defaultFile: `${loaded.name}-${loaded.environment}-server.log`,
    forceFile: config.directories?.log !== undefined,
    ...(options.logStream ? { console: options.logStream } : {}),
  });
  const log = logger.log;
  log.info(
    {
      event: 'server.starting',
      config_file: file,
      environment: loaded.environment,
      data_dir: dataDir,
      log_file: logger.file,
    },
    'starting the Federa server',
  );

  // Several instances: the broker is reached before anything else starts (without it events would be lost).
  let broker: SocketBroker | null = null;
  try {
    broker = createSocketBroker(config, { configFile: file, dialect, log });
    await broker?.connect();
  } catch (error) {
    log.error({ err: error, event: 'server.start_failed' }, 'the message broker could not be used');
    mailer?.close();
    logger.flush();
    throw error;
  }
  const sockets = new SocketServer();
  let created: Awaited<ReturnType<typeof createContext>>;
  try {
    created = await createContext({
      config,
      dataDir,
      log,
      mailer,
      broker,
      events: sockets.events,
      auditDir: config.audit.enabled ? resolve(dataDir, config.audit.directory ?? 'audit') : null,
    });
  } catch (error) {
    log.error(
      { err: error, event: 'server.start_failed' },
      `the server could not start: ${(error as Error).message}`,
    );
    mailer?.close();
    await broker?.close();
    logger.flush();
    throw error;
  }
  const { ctx, seeded } = created;
  let app: App | null = null;
  let metricsListener: MetricsListener | null = null;
  // The start-up sweep of the result store, in the background once listening; stopped and awaited when closing.
  const sweepStop = new AbortController();
  let swept: Promise<void> = Promise.resolve();
  const connections = new Set<Socket>();
  const releaseAll = async (): Promise<void> => {
    // A websocket whose peer never answers the close handshake (seen with vantage6 3.x nodes) would hold the HTTP
    // server open for 30 s: after a short grace, connections still open are cut (docs/reliability.md).
    const cut = setTimeout(() => {
      if (connections.size > 0)
        log.info(
          { event: 'server.connections_cut', open: connections.size },
          'closing connections that did not end',
        );
      for (const socket of connections) socket.destroy();
    }, CLOSE_GRACE_MS);
    cut.unref();
    await sockets.close().catch((error: unknown) => log.error({ err: error }, 'closing the sockets failed'));
    await broker
      ?.close()
      .catch((error: unknown) => log.error({ err: error }, 'closing the message broker failed'));
    if (app)
      await app
        .close()
        .catch((error: unknown) => log.error({ err: error }, 'closing the HTTP server failed'));
    clearTimeout(cut);
    await metricsListener?.close();
    // The last requests' spans go out before the process ends.
    await ctx.tracing
      ?.shutdown()
      .catch((error: unknown) => log.warn({ err: error }, 'sending the last spans failed'));
    sweepStop.abort();
    await swept;
    await ctx.audit
      ?.close()
      .catch((error: unknown) => log.error({ err: error }, 'closing the audit log failed'));
    await ctx.dbh.close().catch((error: unknown) => log.error({ err: error }, 'closing the database failed'));
    await ctx.vpn
      ?.close()
      .catch((error: unknown) => log.error({ err: error }, 'stopping the VPN server failed'));
    mailer?.close();
  };
  try {
    const generated = seeded.rootCreated?.generatedPassword;
    if (seeded.rootCreated && generated) {
      (options.terminal ?? process.stderr).write(
        `${rootPasswordLine(seeded.rootCreated.username, generated)}\n`,
      );
      log.warn(
        { event: 'root.password_generated', username: seeded.rootCreated.username },
        `the root user '${seeded.rootCreated.username}' was created with a generated password, shown on the terminal only`,
      );
    }
    await warnOfSharedOrganizationNames(ctx, log);
    if (!config.smtp)
      log.warn(
        { event: 'mail.not_configured' },
        'password recovery by e-mail is not configured (no smtp block in the configuration)',
      );
    else
      log.info(
        { event: 'mail.configured', mail: mailer?.describe() },
        'password recovery mails go through the configured SMTP server',
      );
    if (config.rabbitmq_uri !== undefined)
      log.warn({ event: 'broker.rabbitmq_unused' }, RABBITMQ_NOT_USED_MESSAGE);
    if (broker)
      log.info(
        { event: 'broker.connected', broker: broker.describe() },
        'socket events are shared with the other instances through the message broker',
      );

    app = await buildApp(ctx, { logger: log });
    if (broker) broker.install(sockets.io);
    const presence = sockets.bind(ctx);
    ctx.metrics?.watchSockets(() => countSockets(sockets.nsp));
    // When no other instance runs, nobody is connected yet: statuses left "online" by an earlier run are stale.
    // (With a broker, serverCount() counts the instances subscribed to it, this one included.)
    const instances = await sockets.nsp.adapter.serverCount();
    if (instances <= 1) await presence.resetAll();
    else
      log.info(
        { event: 'broker.instances', instances },
        `${instances - 1} other instance(s) already running`,
      );
    sockets.attach(app.server);
    // Before listening: no upload reached this instance before this time (the sweep's temporaries).
    const startedMs = Date.now();
    // Every connection, upgraded websockets included, so that stopping never waits on a peer that does not answer.
    app.server.on('connection', (socket: Socket) => {
      connections.add(socket);
      socket.once('close', () => connections.delete(socket));
    });
    const ip = options.ip ?? config.ip;
    await app.listen({ host: ip, port: options.port ?? config.port, backlog: LISTEN_BACKLOG });
    const address = app.server.address();
    const port =
      typeof address === 'object' && address !== null ? address.port : (options.port ?? config.port);
    const url = `http://${urlHost(ip)}:${port}`;
    const apiUrl = `${url}${config.api_path}`;
    let metricsUrl: string | null = null;
    const metrics = ctx.metrics;
    if (metrics && config.metrics.port !== undefined) {
      metricsListener = await listenMetrics({
        ip: config.metrics.ip,
        port: config.metrics.port,
        path: config.metrics.path,
        access: config.metrics,
        text: () => metrics.text(),
        onError: (error) =>
          log.error({ err: error, event: 'metrics.failed' }, 'the metrics could not be collected'),
      });
      metricsUrl = `http://${urlHost(config.metrics.ip)}:${metricsListener.port}${config.metrics.path}`;
    } else if (metrics) metricsUrl = `${url}${config.metrics.path}`;
    log.info(
      {
        event: 'server.listening',
        ip,
        port,
        api_url: apiUrl,
        apidocs_url: `${url}/apidocs`,
        socket_url: `${url}/socket.io/`,
        metrics_url: metricsUrl,
      },
      `Federa server listening: API at ${apiUrl}, documentation at ${url}/apidocs`,
    );

    // Uploads no run will name (the server stopped between an upload and its report, a task deleted meanwhile,
    // a write cut by the stop): removed in the background, so listening waits for none of it
    // (docs/large-results.md#the-start-up-sweep).
    swept = sweepResultStore({
      db: () => ctx.dbh.db,
      dialect: ctx.dbh.dialect,
      store: ctx.results,
      startedMs,
      alone: instances <= 1,
      idleMs: config.http.output_idle_timeout_ms,
      signal: sweepStop.signal,
    }).then(
      (report) =>
        log.info(
          { event: 'result_store.swept', store: ctx.results.kind, ...report },
          `result store swept: ${report.removed + report.temporaries_removed} leftover uploads removed, ${report.bytes_freed} bytes freed`,
        ),
      (error: unknown) =>
        log.error(
          { event: 'result_store.sweep_failed', store: ctx.results.kind, err: error },
          'the start-up sweep of the result store failed; leftover uploads stay until the next start',
        ),
    );

    let closing: Promise<void> | null = null;
    let resolveClosed: () => void = () => undefined;
    const closed = new Promise<void>((r) => (resolveClosed = r));
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
    const close = (): Promise<void> => {
      closing ??= (async () => {
        log.info({ event: 'server.stopping' }, 'stopping the Federa server');
        for (const s of signals) process.removeListener(s, onSignal);
        await releaseAll();
        log.info({ event: 'server.stopped' }, 'the Federa server has stopped');
        logger.flush();
        resolveClosed();
      })();
      return closing;
    };
    function onSignal(signal: NodeJS.Signals): void {
      if (closing) {
        log.warn({ event: 'server.forced_exit', signal }, 'second signal: exiting at once');
        logger.flush();
        process.exit(1);
      }
      log.info({ event: 'server.signal', signal }, `received ${signal}`);
      void close();
    }
    if (options.handleSignals) for (const s of signals) process.on(s, onSignal);
    return { url, apiUrl, port, metricsUrl, ctx, app, sockets, close, closed };
  } catch (error) {
    log.error({ err: error, event: 'server.start_failed' }, 'the server could not start');
    await releaseAll();
    logger.flush();
    throw error;
  }
}
