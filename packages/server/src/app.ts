import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import cors from '@fastify/cors';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from './context.js';
import type { RoutePolicy } from './auth/policy.js';
import type { Caller } from './auth/caller.js';
import type { ClockReading } from './db/change-clock.js';
import { registerRoutes } from './routes/index.js';
import { storeRoutes } from './store/routes/index.js';
import { embeddedStore } from './store/embedded.js';
import { registerConfiguredUi } from './http/ui-static.js';
import { guardBody, guardParameters, guardPathIds } from './http/input-guard.js';
import { addRequestTimeouts } from './http/request-timeout.js';
import { installAuditHooks } from './audit/audit-hooks.js';
import { attachPolicies, checkPolicies } from './http/route-policies.js';
import { limitRoutes } from './http/route-limits.js';
import { answerUnknownRoutes } from './http/not-found.js';
import { apiPrefixes, V4_API_PATH } from './http/api-surfaces.js';
import { registerV4Routes } from './routes/v4/index.js';
import { V4ApiDocs } from './routes/v4/api-docs.js';
import { addSecurityHeaders } from './http/security-headers.js';
import { registerApiDocs } from './http/api-docs.js';
import { authenticateRequests, keepReadAnswers } from './http/read-cache-hooks.js';
import { logRequests } from './http/request-log.js';
import { answerErrors } from './http/error-handler.js';
import { installMetrics } from './metrics/http-metrics.js';
import { traceRequests } from './http/request-tracing.js';
import { RequestLifecycle } from './http/request-lifecycle.js';

export { MissingPolicyError } from './http/route-policies.js';

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
    /** The answer is one the read cache kept: it goes out as it went out before, not formed again. */
    readCacheHit: boolean;
  }
  interface FastifyContextConfig {
    policy?: RoutePolicy;
  }
}

export type App = FastifyInstance;

export interface BuildOptions {
  logger?: FastifyBaseLogger;
  /** Extra route plugins registered under `api_path` (tests use it to check the policy guard). */
  extraRoutes?: FastifyPluginAsync[];
}

/**
 * Builds the Federa API as a Fastify instance that does not listen (server.ts runs it). Every route has a policy
 * from the one policy table; errors answer from the one error table. Each concern lives in its own file under
 * http/; the order below matters where hooks of one kind run in the order they were added (noted per line).
 */
export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<App> {
  const { config } = ctx;
  const apiPath = config.api_path;
  const storePath = config.algorithm_store.path;
  const headersMs = Math.min(config.http.headers_timeout_ms, config.http.request_timeout_ms);
  // Fastify's own per-request lines are off (logRequests logs each request at debug level); the tracing and the
  // metrics hear of each request through it.
  const lifecycle = new RequestLifecycle();
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: config.body_limit_bytes,
    // A request whose headers or body never arrive is answered 408 and its connection closed (docs/security.md):
    // the headers by Node's server, the whole request by addRequestTimeouts (per route: an output's upload and
    // download are bounded by an idle time instead, docs/large-results.md).
    requestTimeout: 0,
    http: {
      requestTimeout: 0,
      headersTimeout: headersMs,
      connectionsCheckingInterval: Math.max(50, Math.min(5_000, Math.floor(headersMs / 4))),
    },
    ajv: {
      customOptions: { coerceTypes: 'array', removeAdditional: false, useDefaults: true, allErrors: false },
    },
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    logController: lifecycle,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.decorate('ctx', ctx);
  app.decorateRequest('caller', null);
  app.decorateRequest('readCacheKey', null);
  app.decorateRequest('readCacheReading', null);
  app.decorateRequest('readCacheHit', false);
  // As each request arrives, before any hook: the span covers the whole request.
  traceRequests(app, ctx, lifecycle);
  addRequestTimeouts(app, {
    requestMs: config.http.request_timeout_ms,
    outputIdleMs: config.http.output_idle_timeout_ms,
    idleRoutes: new Set([`${apiPath}/result/:id/output`]),
  });

  // These learn each route as it is registered (as answerUnknownRoutes does), so come before registerRoutes.
  limitRoutes(app, config);
  const prefixes = apiPrefixes(apiPath);
  const policies = attachPolicies(app, prefixes, storePath);

  // Browsers: only the configured origins may call the API from their pages (default: the server's own).
  const origins = config.cors_origins;
  await app.register(cors, {
    origin: origins.includes('*') ? '*' : origins.length > 0 ? origins : false,
    exposedHeaders: ['total-count', 'Link', 'jwt-token'],
  });
  addSecurityHeaders(app, apiPath); // before keepReadAnswers: a kept answer carries the headers
  await registerApiDocs(app, ctx.version);
  registerConfiguredUi(app, ctx);
  installMetrics(app, ctx, lifecycle);

  app.addHook('preValidation', guardPathIds);
  app.addHook('preValidation', guardBody);
  app.addHook('preHandler', guardParameters);

  // Before the read cache's hooks: a kept answer is recorded too, and never given while the log cannot be written.
  if (ctx.audit) installAuditHooks(app, ctx.audit, prefixes);
  else app.decorateRequest('auditActor', null);
  authenticateRequests(app, ctx);
  keepReadAnswers(app, ctx);
  logRequests(app, options.logger);
  answerErrors(app, ctx);
  answerUnknownRoutes(app, prefixes); // after the hooks, which its answers go through too

  await app.register(registerRoutes, { prefix: apiPath });
  if (ctx.config.algorithm_store.enabled)
    await app.register(storeRoutes(embeddedStore(ctx), storePath), { prefix: storePath });
  if (prefixes.includes(V4_API_PATH)) {
    const docs = new V4ApiDocs();
    await app.register(registerV4Routes, { prefix: V4_API_PATH, docs });
    docs.register(app, ctx.version);
  }
  for (const extra of options.extraRoutes ?? []) await app.register(extra, { prefix: apiPath });
  await app.ready();
  checkPolicies(policies);
  return app;
}
