import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { TRACE_ATTRIBUTE_NAMES } from '@federa/common';
import { Tracing } from '@federa/common/tracing';

export type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

/** Tracing whose spans are kept in memory, each as soon as it ends. */
export function memoryTracing(serviceName = 'federa-test'): {
  tracing: Tracing;
  spans: () => ReadableSpan[];
  clear: () => void;
} {
  const exporter = new InMemorySpanExporter();
  const tracing = new Tracing({ exporter, serviceName, intervalMs: 0 });
  return { tracing, spans: () => exporter.getFinishedSpans(), clear: () => exporter.reset() };
}

/**
 * What of `spans` breaks the rule that spans hold only methods, route patterns, status codes and ids: an attribute
 * of an unlisted name, or any name or value that holds one of `secrets` (a task's input, result or log).
 */
export function spanLeaks(spans: readonly ReadableSpan[], secrets: readonly string[]): string[] {
  const allowed = new Set<string>(TRACE_ATTRIBUTE_NAMES);
  const problems: string[] = [];
  for (const span of spans) {
    const texts = [span.name];
    for (const [key, value] of Object.entries(span.attributes)) {
      if (!allowed.has(key)) problems.push(`${span.name}: attribute ${key} is not in the list`);
      texts.push(String(value));
    }
    for (const event of span.events) texts.push(event.name, JSON.stringify(event.attributes ?? {}));
    texts.push(span.status.message ?? '');
    for (const secret of secrets)
      if (texts.some((t) => t.includes(secret)))
        problems.push(`${span.name}: holds ${JSON.stringify(secret)}`);
  }
  return problems;
}
