import type { FastifyInstance } from 'fastify';
import { checkMetricsAccess } from '@federa/common';
import type { AppContext } from '../context.js';

/** The route label of a request that matched no route (404s, 405s): one label, never the URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Records each answered request in the server's metrics, and serves them at `metrics.path` of the API's port unless
 * the configuration gives them a port of their own (server.ts listens there). Nothing happens without metrics.
 */
export function installMetrics(app: FastifyInstance, ctx: AppContext): void {
  const metrics = ctx.metrics;
  if (!metrics) return;
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(
      request.method,
      request.routeOptions.url ?? UNMATCHED_ROUTE,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  const config = ctx.config.metrics;
  if (config.port !== undefined) return;
  app.get(config.path, { schema: { hide: true } }, async (request, reply) => {
    const refused = checkMetricsAccess(config, request.socket.remoteAddress, request.headers);
    if (refused !== null) return reply.status(403).send({ msg: refused, code: 'metrics_refused' });
    const { contentType, body } = await metrics.text();
    return reply.type(contentType).send(body);
  });
}
