/**
 * Traces of Federa's work (docs/observability.md#traces): a thin layer over the OpenTelemetry SDK with its own
 * tracer provider (nothing global is registered, so a server and a node in one process keep their own), the
 * context passed explicitly or held by an AsyncLocalStorage of this instance, and `traceparent` in and out.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { TraceAttributes } from './attributes.js';
import type { TracingConfig } from './config.js';
import { formatTraceparent, parseTraceparent } from './traceparent.js';

export { SpanKind, type Span } from '@opentelemetry/api';

export interface TracingOptions {
  /** Where finished spans go: the OTLP/HTTP exporter, or an in-memory one in tests. */
  readonly exporter: SpanExporter;
  /** `service.name` of every span. */
  readonly serviceName: string;
  readonly serviceVersion?: string;
  /** Spans are sent in batches this often (milliseconds); 0 sends each span as it ends (tests). */
  readonly intervalMs?: number;
}

/** Where a new span hangs: a `traceparent` value, a span, `null` for a new trace, or absent for the current span. */
export type SpanParent = string | Span | null | undefined;

export interface StartOptions {
  readonly parent?: SpanParent;
  readonly kind?: SpanKind;
  readonly attributes?: TraceAttributes;
  /** When the span began, if before now (milliseconds since the epoch). */
  readonly startTime?: number;
}

export class Tracing {
  readonly #provider: BasicTracerProvider;
  readonly #tracer: Tracer;
  readonly #current = new AsyncLocalStorage<Span>();

  constructor(options: TracingOptions) {
    const processor =
      options.intervalMs === 0
        ? new SimpleSpanProcessor(options.exporter)
        : new BatchSpanProcessor(options.exporter, { scheduledDelayMillis: options.intervalMs ?? 5_000 });
    this.#provider = new BasicTracerProvider({
      resource: resourceFromAttributes({
        'service.name': options.serviceName,
        ...(options.serviceVersion ? { 'service.version': options.serviceVersion } : {}),
      }),
      spanProcessors: [processor],
    });
    this.#tracer = this.#provider.getTracer('federa', options.serviceVersion);
  }

  /**
   * Tracing as the `tracing` configuration key says: spans sent by OTLP/HTTP (JSON) to its endpoint; null when
   * the key is absent. `onExportError` hears of a batch that could not be sent (its spans are dropped).
   */
  static fromConfig(
    config: TracingConfig | undefined,
    defaults: { serviceName: string; serviceVersion?: string; onExportError?: (message: string) => void },
  ): Tracing | null {
    if (!config) return null;
    const otlp = new OTLPTraceExporter({
      url: config.endpoint,
      headers: { ...(config.headers ?? {}) },
      timeoutMillis: 10_000,
    });
    return new Tracing({
      exporter: defaults.onExportError ? reportingFailures(otlp, defaults.onExportError) : otlp,
      serviceName: config.service_name ?? defaults.serviceName,
      ...(defaults.serviceVersion ? { serviceVersion: defaults.serviceVersion } : {}),
      intervalMs: config.interval_ms ?? 5_000,
    });
  }

  /** Starts a span; the caller ends it. */
  start(name: string, options: StartOptions = {}): Span {
    return this.#tracer.startSpan(
      name,
      {
        kind: options.kind ?? SpanKind.INTERNAL,
        ...(options.attributes
          ? { attributes: options.attributes as Record<string, string | number | boolean> }
          : {}),
        ...(options.startTime !== undefined ? { startTime: options.startTime } : {}),
      },
      this.#context(options.parent),
    );
  }

  /** Runs `fn` with `span` as the current span (of this instance): spans started within hang from it. */
  within<T>(span: Span, fn: () => T): T {
    return this.#current.run(span, fn);
  }

  /** The current span of this instance, if any. */
  current(): Span | undefined {
    return this.#current.getStore();
  }

  /**
   * Runs `fn` in a new child of the current span, ended when `fn` settles. A failure marks the span an error with
   * no message: messages may quote a task's content.
   */
  async inSpan<T>(name: string, attributes: TraceAttributes, fn: (span: Span) => Promise<T>): Promise<T> {
    const span = this.start(name, { attributes });
    try {
      return await this.within(span, () => fn(span));
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', 'error');
      throw error;
    } finally {
      span.end();
    }
  }

  /** The `traceparent` that makes a callee's spans children of `span` (default: the current span). */
  traceparent(span: Span | undefined = this.current()): string | undefined {
    if (!span) return undefined;
    const c = span.spanContext();
    return formatTraceparent({ traceId: c.traceId, spanId: c.spanId, flags: c.traceFlags });
  }

  /** Sends the spans that have ended and not gone yet. */
  async flush(): Promise<void> {
    await this.#provider.forceFlush();
  }

  /** Sends what is left, then stops. */
  async shutdown(): Promise<void> {
    await this.#provider.shutdown();
  }

  #context(parent: SpanParent): Context {
    if (parent === null) return ROOT_CONTEXT;
    if (parent === undefined) {
      const current = this.current();
      return current ? trace.setSpan(ROOT_CONTEXT, current) : ROOT_CONTEXT;
    }
    if (typeof parent !== 'string') return trace.setSpan(ROOT_CONTEXT, parent);
    const p = parseTraceparent(parent);
    if (!p) return ROOT_CONTEXT;
    return trace.setSpanContext(ROOT_CONTEXT, {
      traceId: p.traceId,
      spanId: p.spanId,
      traceFlags: p.flags & 1,
      isRemote: true,
    });
  }
}

/** Marks a span failed by a fixed word (never a message, which may quote a task's content). */
export function failSpan(span: Span, errorType: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute('error.type', errorType);
}

/** An exporter that tells `onError` of a batch it could not send: once, then again after a batch went through. */
function reportingFailures(inner: SpanExporter, onError: (message: string) => void): SpanExporter {
  let failing = false;
  return {
    export(spans, done) {
      inner.export(spans, (result) => {
        if (result.code !== 0 && !failing) {
          failing = true;
          onError(result.error?.message ?? 'the collector did not accept the spans');
        } else if (result.code === 0) failing = false;
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    ...(inner.forceFlush ? { forceFlush: () => inner.forceFlush!() } : {}),
  };
}
