import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyPluginAsync,
} from 'fastify';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import FindMyWay from 'find-my-way';
import { ApiError, ERROR_CODES, INTERNAL_ERROR_MESSAGE } from './errors.js';
import type { AppContext } from './context.js';
import { POLICIES, policyKey, type RoutePolicy } from './auth/policy.js';
import { authenticate, bearerToken, touchLastSeen } from './auth/authenticate.js';
import type { Caller } from './auth/caller.js';
import type { CachedAnswer } from './http/read-cache.js';
import type { ClockReading } from './db/change-clock.js';
import { registerRoutes } from './routes/index.js';
import { isConnectionError, isPoolBusy } from './db/renewable-pool.js';
import { isUniqueViolation } from './db/violations.js';
import { registerConfiguredUi } from './http/ui-static.js';
import {
  DATA_FIELDS,
  guardBody,
  guardParameters,
  guardPathIds,
  limitRouteSchemas,
} from './http/input-guard.js';
import { addRequestTimeouts } from './http/request-timeout.js';
import { installAuditHooks } from './audit/audit-hooks.js';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
  interface FastifyRequest {
    caller: Caller | null;
    /** Set when the answer of this GET may be kept in the read cache: its key and the clock's reading. */
    readCacheKey: string | null;
    /** The read cache's clock reading taken before this request's queries (GET with the cache on). */
    readCacheReading: ClockReading | null;
  }
  interface FastifyContextConfig {
    policy?: RoutePolicy;
  }
}

export type App = FastifyInstance;

/** Routes (relative to `api_path`) registered without a policy; `buildApp` refuses to finish when any exist. */
export class MissingPolicyError extends Error {}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** First offending field of a validation error, as a dotted name. */
function validationField(error: FastifyError): string {
  const v = error.validation?.[0];
  if (!v) return 'body';
  const missing = (v.params as { missingProperty?: string } | undefined)?.missingProperty;
  const path = (v.instancePath || '').replace(/^\//, '').replace(/\//g, '.');
  const field = [path, missing].filter(Boolean).join('.');
  return field || error.validationContext || 'body';
}

/**
 * The security headers of every answer (docs/security.md). The API's JSON is never a page: nothing may load or
 * frame it. `/apidocs` is a page whose scripts and styles all come from the server itself.
 */
function securityHeaders(url: string, apiPath: string): Record<string, string> {
  const page = url.startsWith('/apidocs') && !url.startsWith(`${apiPath}/`);
  return {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'strict-transport-security': 'max-age=31536000',
    'x-permitted-cross-domain-policies': 'none',
    'content-security-policy': page
      ? "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
      : "default-src 'none'; frame-ancestors 'none'",
  };
}

/**
 * Builds the Federa API as a Fastify instance that does not listen (server.ts runs it). Every route has a policy
 * from the one policy table; errors answer from the one error table.
 */
export interface BuildOptions {
  logger?: FastifyBaseLogger;
  /** Extra route plugins registered under `api_path` (tests use it to check the policy guard). */
  extraRoutes?: FastifyPluginAsync[];
}

export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<App> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: ctx.config.body_limit_bytes,
    // A request whose headers or body never arrive is answered 408 and its connection closed (docs/security.md):
    // the headers by Node's server, the whole request by addRequestTimeouts (per route: an output's upload and
    // download are bounded by an idle time instead, docs/large-results.md).
    requestTimeout: 0,
    http: {
      requestTimeout: 0,
      headersTimeout: Math.min(ctx.config.http.headers_timeout_ms, ctx.config.http.request_timeout_ms),
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(
          5_000,
          Math.floor(Math.min(ctx.config.http.headers_timeout_ms, ctx.config.http.request_timeout_ms) / 4),
        ),
      ),
    },
    ajv: {
      customOptions: { coerceTypes: 'array', removeAdditional: false, useDefaults: true, allErrors: false },
    },
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    // Fastify's own per-request lines are off; the onResponse hook below logs each request at debug level.
    logController: new LogController({ disableRequestLogging: true }),
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.decorate('ctx', ctx);
  app.decorateRequest('caller', null);
  app.decorateRequest('readCacheKey', null);
  app.decorateRequest('readCacheReading', null);
  addRequestTimeouts(app, {
    requestMs: ctx.config.http.request_timeout_ms,
    outputIdleMs: ctx.config.http.output_idle_timeout_ms,
    idleRoutes: new Set([`${ctx.config.api_path}/result/:id/output`]),
  });

  const apiPath = ctx.config.api_path;
  const known = FindMyWay();
  const missing: string[] = [];

  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter(
      (m) => m !== 'HEAD' && m !== 'OPTIONS',
    );
    if (!route.url.startsWith(`${apiPath}/`)) return;
    const rel = route.url.slice(apiPath.length);
    // Input limits of every route (docs/security.md, "Input limits"); the data of runs gets the larger body limit.
    const data = methods.some((m) => DATA_FIELDS[policyKey(m, rel)]);
    if (data && route.bodyLimit === undefined) route.bodyLimit = ctx.config.task_body_limit_bytes;
    limitRouteSchemas(
      route,
      policyKey(methods.find((m) => DATA_FIELDS[policyKey(m, rel)]) ?? methods[0] ?? 'GET', rel),
      {
        stringChars: ctx.config.limits.string_chars,
        textChars: ctx.config.limits.text_chars,
        dataChars: ctx.config.task_body_limit_bytes,
      },
    );
    for (const m of methods) {
      known.on(m as 'GET', route.url, () => undefined);
      const policy = POLICIES[policyKey(m, rel)];
      if (!policy) {
        missing.push(policyKey(m, rel));
        continue;
      }
      route.config = { ...(route.config ?? {}), policy };
    }
  });

  // Browsers: only the configured origins may call the API from their pages (default: the server's own).
  const origins = ctx.config.cors_origins;
  await app.register(cors, {
    origin: origins.includes('*') ? '*' : origins.length > 0 ? origins : false,
    exposedHeaders: ['total-count', 'Link', 'jwt-token'],
  });
  app.addHook('onSend', async (request, reply) => {
    for (const [name, value] of Object.entries(securityHeaders(request.url, apiPath)))
      if (!reply.hasHeader(name)) void reply.header(name, value);
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Federa API',
        version: ctx.version,
        description:
          'The Federa REST API (wire-compatible with vantage6 3.x). Authenticate with `POST /token/user`, then send `Authorization: Bearer <access_token>`. Paginated listings accept `page`, `per_page` and `include=metadata`.',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/apidocs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });
  app.get('/apispec_1.json', { schema: { hide: true } }, async () => app.swagger());
  registerConfiguredUi(app, ctx);

  app.addHook('preValidation', guardPathIds);
  app.addHook('preValidation', guardBody);
  app.addHook('preHandler', guardParameters);

  // Before the read cache's hooks: a kept answer is recorded too, and never given while the log cannot be written.
  if (ctx.audit) installAuditHooks(app, ctx.audit, apiPath);
  else app.decorateRequest('auditActor', null);

  const cache = ctx.readCache;
  app.addHook('onRequest', async (request, reply) => {
    const policy = request.routeOptions.config.policy;
    if (!policy) return;
    // Keyed by the whole Authorization header: an answer only ever goes back to the token it was made for.
    // Public answers are never kept (nobody authenticated them), so public routes do not read the clock either.
    const key =
      cache && request.method === 'GET' && policy.callers !== 'public'
        ? `${request.headers.authorization ?? ''} ${request.url}`
        : null;
    if (key !== null && cache?.remote && !cache.holds(key)) {
      // PostgreSQL, where reading the clock is a round trip, and no answer is kept for this request (the first
      // read after a change): the reading comes with the caller, in one query (auth/authenticate.ts). When one is
      // kept, the clock alone is read first (below): a trivial query, and often all the request costs.
      request.readCacheKey = key;
      request.caller = await authenticate(ctx, request, policy);
      if (request.readCacheReading === null) {
        // Recording last_seen changed the database since the reading: the answer is computed afresh and not kept,
        // which spares this request a second look at the clock (a round trip; docs/performance.md, tenth session).
        request.readCacheKey = null;
        return;
      }
      const kept = cache.answer(key, request.readCacheReading);
      if (kept && kept.until > Date.now()) {
        request.readCacheKey = null;
        return reply.headers(kept.headers).send(kept.body);
      }
      return;
    }
    if (key !== null && cache) {
      let reading = await cache.refresh();
      const kept = cache.answer(key, reading);
      if (kept && kept.until > Date.now()) {
        request.auditActor = { kind: kept.caller.kind, id: kept.caller.id };
        const seen = touchLastSeen(ctx, kept.caller.kind, kept.caller.id);
        if (!seen) return reply.headers(kept.headers).send(kept.body);
        await seen; // recording last_seen changed the database: the answer is computed afresh
        reading = await cache.refresh();
      }
      request.readCacheReading = reading;
    }
    request.caller = await authenticate(ctx, request, policy);
    if (key !== null && cache && request.caller) {
      request.readCacheKey = key;
      request.readCacheReading ??= await cache.refresh();
    }
  });
  if (cache?.remote) {
    // A request that may have written (not a GET): nothing kept is worth a look at the clock any more.
    app.addHook('onResponse', (request, _reply, done) => {
      if (request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'OPTIONS')
        cache.changed();
      done();
    });
  }
  if (cache) {
    app.addHook('onSend', (request, reply, payload, done) => {
      const reading = request.readCacheReading;
      if (
        request.readCacheKey !== null &&
        reading !== null &&
        reply.statusCode === 200 &&
        typeof payload === 'string'
      ) {
        const headers: CachedAnswer['headers'] = {};
        for (const [name, value] of Object.entries(reply.getHeaders())) {
          if (value !== undefined && name !== 'content-length' && !name.startsWith('access-control-'))
            headers[name] = value;
        }
        const caller = request.caller;
        const until = Math.min(
          ctx.tokens.acceptedUntil(bearerToken(request.headers.authorization)),
          request.caller?.validUntil ?? Infinity,
        );
        if (caller && until > Date.now()) {
          cache.keepAnswer(request.readCacheKey, reading, {
            headers,
            body: Buffer.from(payload),
            caller: { kind: caller.kind, id: caller.id },
            until,
          });
        }
      }
      done(null, payload);
    });
  }

  // One structured line per request at debug level; the hook is only installed when debug logging is on.
  if (options.logger?.level === 'debug' || options.logger?.level === 'trace') {
    app.addHook('onResponse', async (request, reply) => {
      request.log.debug(
        {
          event: 'http.request',
          method: request.method,
          url: request.url,
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime),
        },
        'request',
      );
    });
  }

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError && !(error.status === 500 && isConnectionError(error.cause))) {
      if (error.status >= 500) request.log.error({ err: error.cause ?? error }, error.message);
      // 500 answers carry only the fixed text; 501/503 messages come from the routes and are public.
      const body =
        error.status === 500
          ? { msg: INTERNAL_ERROR_MESSAGE, code: error.code }
          : { msg: error.message, code: error.code, ...error.extra };
      return reply.status(error.status).send(body);
    }
    const fe = error as FastifyError;
    if (fe.validation) {
      const field = validationField(fe);
      const detail = fe.validation[0]?.message ?? 'is invalid';
      const text = fe.validation[0]?.keyword === 'required' ? 'is required' : detail;
      const where =
        fe.validationContext === 'querystring'
          ? 'query parameter'
          : fe.validationContext === 'params'
            ? 'path parameter'
            : 'field';
      return reply
        .status(400)
        .send({ msg: `${where} '${field}' ${text}`, code: 'validation_failed', message: { [field]: text } });
    }
    if (
      fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
      error instanceof SyntaxError
    ) {
      return reply.status(400).send({
        msg: 'The request body is not valid JSON.',
        message: 'The request body is not valid JSON.',
        code: 'malformed_json',
      });
    }
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.status(413).send({
        msg: `The request body is larger than ${request.routeOptions.bodyLimit ?? ctx.config.body_limit_bytes} bytes.`,
        code: 'payload_too_large',
      });
    }
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.status(400).send({
        msg: 'Send the request body as JSON (Content-Type: application/json).',
        code: 'bad_request',
      });
    }
    if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
      return reply
        .status(fe.statusCode)
        .send({ msg: fe.message.replace(/\/[^\s]*\//g, ''), code: 'bad_request' });
    }
    if (isPoolBusy(error)) {
      // Every database connection stayed busy for connect_timeout_ms: the server is saturated (docs/reliability.md).
      request.log.warn(
        { event: 'db.pool_busy', url: request.url, method: request.method },
        'no database connection came free in time',
      );
      return reply.status(503).header('Retry-After', String(ctx.config.database.retry_after_seconds)).send({
        msg: 'The server is busy: no database connection came free in time; retry later.',
        code: 'unavailable',
      });
    }
    if (isConnectionError(error instanceof ApiError ? error.cause : error)) {
      // The database is unreachable (refused, reset or silent connection): callers retry (docs/reliability.md).
      request.log.warn(
        {
          event: 'db.unavailable',
          url: request.url,
          method: request.method,
          err: { message: error.message },
        },
        'the database is unreachable',
      );
      return reply
        .status(503)
        .header('Retry-After', String(ctx.config.database.retry_after_seconds))
        .send({ msg: 'The database is unreachable at the moment; retry later.', code: 'unavailable' });
    }
    if (isUniqueViolation(error instanceof ApiError ? error.cause : error)) {
      // A write the database refused because a value it holds once (a name) is taken, by an earlier write or by
      // another request at the same moment, on a route that does not name the value itself: the request conflicts
      // with what is there; the server is not at fault. The constraint's name stays in the log.
      request.log.warn(
        {
          event: 'db.unique_violation',
          url: request.url,
          method: request.method,
          err: { message: error.message },
        },
        'a write would repeat a unique value',
      );
      return reply.status(ERROR_CODES.conflict.status).send({
        msg: 'This would repeat a value that must be unique, such as a name, and is taken already; the request was refused.',
        code: 'conflict',
      });
    }
    request.log.error({ err: error, url: request.url, method: request.method }, 'unhandled error');
    return reply.status(500).send({ msg: INTERNAL_ERROR_MESSAGE, code: 'internal' });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((m) => m !== request.method && known.find(m, path));
    if (allowed.length > 0) {
      void reply.header('Allow', allowed.join(', '));
      return reply.status(405).send({
        msg: ERROR_CODES.method_not_allowed.description,
        message: ERROR_CODES.method_not_allowed.description,
        code: 'method_not_allowed',
      });
    }
    return reply
      .status(404)
      .send({ msg: `No such endpoint: ${request.method} ${path}`, code: 'route_not_found' });
  });

  await app.register(registerRoutes, { prefix: apiPath });
  for (const extra of options.extraRoutes ?? []) await app.register(extra, { prefix: apiPath });
  await app.ready();
  if (missing.length > 0) {
    throw new MissingPolicyError(`routes without a policy in auth/policy.ts: ${missing.join(', ')}`);
  }
  return app;
}
