import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiError, INTERNAL_ERROR_MESSAGE } from '../errors.js';
import { DatabaseHandle } from '../db/handle.js';
import { parseDatabaseUri } from '../db/uri.js';
import { ServerAudit } from '../audit/server-audit.js';
import { SERVER_VERSION } from '../version.js';
import { identityResolver, normalizeServerUrl } from './identity.js';
import { storeRoutes } from './routes/index.js';
import { CatalogueCache } from './catalogue-cache.js';
import { CatalogueListener } from './catalogue-listener.js';
import { catalogueVersion } from '../repositories/store.js';
import type { ConfiguredManager, StoreContext } from './context.js';

/**
 * An algorithm store in a process of its own (`vstore start`), which several servers link to: a consortium shares
 * one store across its servers. Its users are those of the servers it trusts; it asks their server who they are.
 */
export interface StandaloneStoreOptions {
  /** Database URI, as the server's `uri`. */
  uri: string;
  /** Where relative SQLite paths live. */
  dataDir: string;
  ip: string;
  port: number;
  /** The API's prefix; `/api` as vantage6's store. */
  path: string;
  trustedServers: readonly string[];
  managers: readonly ConfiguredManager[];
  timeoutMs: number;
  /** A folder for the audit log; none when left out. */
  auditDir?: string;
  log: FastifyBaseLogger;
}

export interface StoreHandle {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

export async function startStore(options: StandaloneStoreOptions): Promise<StoreHandle> {
  if (options.trustedServers.length === 0)
    throw new Error('a store of its own needs at least one trusted server (--trusted-server URL)');
  const dbh = new DatabaseHandle(parseDatabaseUri(options.uri, options.dataDir), { log: options.log });
  let audit: ServerAudit | null = null;
  const closing: (() => Promise<unknown>)[] = [() => dbh.close()];
  const close = async () => {
    for (const c of closing.splice(0).reverse()) await c().catch(() => undefined);
  };
  try {
    await dbh.migrate();
    if (options.auditDir) {
      audit = await ServerAudit.open({
        dir: options.auditDir,
        maxFileBytes: 64 * 1024 * 1024,
        sync: true,
        log: options.log,
      });
      const opened = audit;
      closing.push(() => opened.close());
    }
    const listener =
      dbh.target.dialect === 'postgres' ? new CatalogueListener(dbh.target.location, options.log) : undefined;
    await listener?.start();
    const sctx: StoreContext = {
      db: dbh.db,
      identify: identityResolver({ trusted: options.trustedServers, timeoutMs: options.timeoutMs }),
      managers: options.managers.map((m) => ({
        server_url: normalizeServerUrl(m.server_url),
        username: m.username,
      })),
      audit,
      log: options.log,
      version: SERVER_VERSION,
      cache: new CatalogueCache(dbh.changes, () => catalogueVersion(dbh.db), { signal: listener }),
      ...(listener ? { listener } : {}),
    };
    const app = Fastify({
      loggerInstance: options.log,
      bodyLimit: 1024 * 1024,
    }).withTypeProvider<TypeBoxTypeProvider>();
    closing.push(() => app.close());
    await app.register(cors, { origin: '*' });
    await app.register(swagger, {
      openapi: { openapi: '3.0.3', info: { title: 'Federa algorithm store', version: SERVER_VERSION } },
    });
    app.get('/apispec.json', { schema: { hide: true } }, async () => app.swagger());
    app.setErrorHandler(storeErrorHandler);
    app.setNotFoundHandler((request, reply) =>
      reply.status(404).send({
        msg: `No such endpoint: ${request.method} ${request.url.split('?')[0]}`,
        code: 'route_not_found',
      }),
    );
    await app.register(storeRoutes(sctx, options.path), { prefix: options.path });
    const url = await app.listen({ host: options.ip, port: options.port });
    return { app, url, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The store's answers to errors: the same codes and shapes as the server's (docs/errors.md). */
function storeErrorHandler(
  this: FastifyInstance,
  error: FastifyError | ApiError,
  request: Parameters<Parameters<FastifyInstance['setErrorHandler']>[0]>[1],
  reply: Parameters<Parameters<FastifyInstance['setErrorHandler']>[0]>[2],
) {
  if (error instanceof ApiError) {
    if (error.status >= 500 && error.status !== 503)
      request.log.error({ err: error.cause ?? error }, error.message);
    const body =
      error.status === 500
        ? { msg: INTERNAL_ERROR_MESSAGE, code: error.code }
        : { msg: error.message, code: error.code, ...error.extra };
    return reply.status(error.status).send(body);
  }
  if (error.validation) {
    const v = error.validation[0];
    const field =
      [
        (v?.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.'),
        (v?.params as { missingProperty?: string } | undefined)?.missingProperty,
      ]
        .filter(Boolean)
        .join('.') || 'body';
    const text = v?.keyword === 'required' ? 'is required' : (v?.message ?? 'is invalid');
    return reply
      .status(400)
      .send({ msg: `field '${field}' ${text}`, code: 'validation_failed', message: { [field]: text } });
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500)
    return reply.status(error.statusCode).send({ msg: 'The request is malformed.', code: 'bad_request' });
  request.log.error({ err: error }, 'unhandled error');
  return reply.status(500).send({ msg: INTERNAL_ERROR_MESSAGE, code: 'internal' });
}
