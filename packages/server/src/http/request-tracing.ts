import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { SpanKind, cleanTraceparent, failSpan, parseTraceparent, type Span } from '@federa/common';
import type { AppContext } from '../context.js';
import { UNMATCHED_ROUTE } from '../metrics/http-metrics.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** This request's span (docs/observability.md#traces); null when tracing is off. */
    traceSpan: Span | null;
  }
}

/**
 * A span for each request in a trace: one whose caller sends a sampled `traceparent` (the SDK for a task's post
 * and reads, a node in a run, an algorithm through its node's proxy), and `tracing.new_trace_ratio` of the others
 * as traces of their own. Its name and attributes are the method, the route's pattern and the status: never the
 * path, the query or a body. A request outside any trace costs one header look-up; nothing is installed when
 * tracing is off.
 */
export function traceRequests(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('traceSpan', null);
  const tracing = ctx.tracing;
  if (!tracing) return;
  const ratio = ctx.config.tracing?.new_trace_ratio ?? 0;
  app.addHook('onRequest', (request, reply, done) => {
    const header = request.headers.traceparent;
    const parent = typeof header === 'string' ? parseTraceparent(header) : null;
    if (parent ? (parent.flags & 1) === 1 : ratio > 0 && Math.random() < ratio) {
      const span = tracing.start(request.method, {
        parent: parent ? (header as string) : null,
        kind: SpanKind.SERVER,
      });
      request.traceSpan = span;
      // Ended when the connection is done with the answer: sent, or the caller gone.
      reply.raw.once('close', () => endRequestSpan(span, request, reply.raw));
    }
    done();
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
