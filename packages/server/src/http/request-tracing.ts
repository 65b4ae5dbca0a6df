import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SpanKind, cleanTraceparent, failSpan, type Span } from '@federa/common';
import type { AppContext } from '../context.js';
import { UNMATCHED_ROUTE } from '../metrics/http-metrics.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** This request's span (docs/observability.md#traces); null when tracing is off. */
    traceSpan: Span | null;
  }
}

/**
 * One span per request, the child of the caller's `traceparent` when it sends one. Its name and attributes are
 * the method, the route's pattern and the status: never the path, the query or a body. Nothing is installed
 * when tracing is off.
 */
export function traceRequests(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('traceSpan', null);
  const tracing = ctx.tracing;
  if (!tracing) return;
  app.addHook('onRequest', (request, _reply, done) => {
    const header = request.headers.traceparent;
    request.traceSpan = tracing.start(request.method, {
      parent: typeof header === 'string' ? header : null,
      kind: SpanKind.SERVER,
    });
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const span = request.traceSpan;
    if (span) {
      const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
      const status = reply.statusCode;
      span.updateName(`${request.method} ${route}`);
      span.setAttributes({
        'http.request.method': request.method,
        'http.route': route,
        'http.response.status_code': status,
      });
      if (status >= 500) failSpan(span, String(status));
      span.end();
    }
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    const span = request.traceSpan;
    if (span?.isRecording()) {
      failSpan(span, 'aborted');
      span.end();
    }
    done();
  });
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
