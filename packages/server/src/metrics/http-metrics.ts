import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { checkMetricsAccess } from '@federa/common';
import type { AppContext } from '../context.js';
import type { RequestLifecycle } from '../http/request-lifecycle.js';

/** The route label of a request that matched no route (404s, 405s): one label, never the URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Node's event of each answer sent in full by any HTTP server of the process. */
const ANSWER_FINISHED = 'http.server.response.finish';

const ROUTE = Symbol('federa.metrics.route');
const ARRIVED = Symbol('federa.metrics.arrived');

/** A raw request of this app as its arrival marked it: the route's pattern and the time it arrived. */
interface MarkedRequest extends IncomingMessage {
  [ROUTE]?: string;
  [ARRIVED]?: number;
}

interface AnswerFinished {
  request: MarkedRequest;
  response: ServerResponse;
  server: Server;
}

/**
 * Records each answered request in the server's metrics, and serves them at `metrics.path` of the API's port unless
 * the configuration gives them a port of their own (server.ts listens there). Nothing happens without metrics.
 *
 * A request is marked as it arrives (its route's pattern and the time) and recorded when Node says its answer has
 * gone: no hook, no listener, no closure per request. Node tells of answers of real connections only: a request
 * made with `app.inject` (light-my-request) is not counted.
 */
export function installMetrics(app: FastifyInstance, ctx: AppContext, lifecycle: RequestLifecycle): void {
  const metrics = ctx.metrics;
  if (!metrics) return;
  lifecycle.onArrival((request) => {
    const raw = request.raw as MarkedRequest;
    raw[ROUTE] = request.routeOptions.url ?? UNMATCHED_ROUTE;
    raw[ARRIVED] = performance.now();
  });
  const server = app.server;
  const finished = (message: unknown): void => {
    const { request, response, server: from } = message as AnswerFinished;
    const route = request[ROUTE];
    if (from !== server || route === undefined) return;
    metrics.observeRequest(
      request.method!,
      route,
      response.statusCode,
      (performance.now() - request[ARRIVED]!) / 1000,
    );
  };
  subscribe(ANSWER_FINISHED, finished);
  app.addHook('onClose', (_instance, done) => {
    unsubscribe(ANSWER_FINISHED, finished);
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
