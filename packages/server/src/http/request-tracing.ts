import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { cleanTraceparent, parseTraceparent } from '@federa/common';
import { SpanKind, failSpan, type Span } from '@federa/common/tracing';
import type { AppContext } from '../context.js';
import { V4_API_PATH } from './api-surfaces.js';
import { UNMATCHED_ROUTE } from '../metrics/http-metrics.js';
import type { RequestLifecycle } from './request-lifecycle.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** This request's span (docs/observability.md#traces); null when tracing is off. */
    traceSpan: Span | null;
  }
}

/**
 * A span for each request in a trace: one whose caller sends a sampled `traceparent` (the SDK for a task's post
 * and reads, a node in a run, an algorithm through its node's proxy); a `POST /task` without one, and
 * `tracing.new_trace_ratio` of the other requests, begin traces of their own. Its name and attributes are the method, the route's pattern and the status: never the
 * path, the query or a body. A request outside any trace costs one header look-up as it arrives (no hook);
 * nothing is installed when tracing is off.
 */
export function traceRequests(app: FastifyInstance, ctx: AppContext, lifecycle: RequestLifecycle): void {
  app.decorateRequest('traceSpan', null);
  const tracing = ctx.tracing;
  if (!tracing) return;
  const ratio = ctx.config.tracing?.new_trace_ratio ?? 0;
  // Every task gets a trace, whichever client posts it: a post without a context begins one.
  const createTask = new Set([`${ctx.config.api_path}/task`, `${V4_API_PATH}/task`]);
  lifecycle.onArrival((request, reply) => {
    const header = request.headers.traceparent;
    const parent = typeof header === 'string' ? parseTraceparent(header) : null;
    const traced = parent
      ? (parent.flags & 1) === 1
      : (request.method === 'POST' && createTask.has(request.routeOptions.url ?? '')) ||
        (ratio > 0 && Math.random() < ratio);
    if (traced) {
      const span = tracing.start(request.method, {
        parent: parent ? (header as string) : null,
        kind: SpanKind.SERVER,
      });
      request.traceSpan = span;
      // Ended when the connection is done with the answer: sent, or the caller gone.
      reply.raw.once('close', () => endRequestSpan(span, request, reply.raw));
    }
  });
}

function endRequestSpan(span: Span, request: FastifyRequest, res: ServerResponse): void {
  const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
  span.updateName(`${request.method} ${route}`);
  span.setAttributes({
    'http.request.method': request.method,
    'http.route': route,
    'http.response.status_code': res.statusCode,
  });
  if (!res.writableEnded) failSpan(span, 'aborted');
  else if (res.statusCode >= 500) failSpan(span, String(res.statusCode));
  span.end();
}

/**
 * The trace context a task created by this request keeps (the nodes' spans of its runs hang from it): this
 * request's span, or with tracing off the caller's own `traceparent`, so that the nodes' spans still join the
 * caller's trace.
 */
export function requestTraceparent(ctx: AppContext, request: FastifyRequest): string | null {
  if (ctx.tracing && request.traceSpan) return ctx.tracing.traceparent(request.traceSpan) ?? null;
  return cleanTraceparent(request.headers.traceparent);
}
