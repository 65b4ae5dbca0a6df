/**
 * W3C Trace Context's `traceparent` (https://www.w3.org/TR/trace-context/): `00-<trace id>-<parent id>-<flags>`.
 * It arrives from callers, containers and stored tasks, so it is read strictly: anything else is no context.
 */

/** A span's place in a trace, as `traceparent` carries it. */
export interface TraceParent {
  readonly traceId: string;
  readonly spanId: string;
  /** Bit 0: the caller sampled (records) this trace. */
  readonly flags: number;
}

const FORM = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The context a `traceparent` value names, or null when the value is absent or not one. */
export function parseTraceparent(value: unknown): TraceParent | null {
  if (typeof value !== 'string' || value.length !== 55) return null;
  const m = FORM.exec(value);
  if (!m) return null;
  const [, version, traceId, spanId, flags] = m as unknown as [string, string, string, string, string];
  // Version ff is forbidden; all-zero ids name nothing.
  if (version === 'ff' || traceId === ZERO_TRACE || spanId === ZERO_SPAN) return null;
  return { traceId, spanId, flags: parseInt(flags, 16) };
}

/** The `traceparent` value (version 00) of a context. */
export const formatTraceparent = (p: TraceParent): string =>
  `00-${p.traceId}-${p.spanId}-${(p.flags & 0xff).toString(16).padStart(2, '0')}`;

/** A value that passes {@link parseTraceparent}, written again in version 00's form; null otherwise. */
export function cleanTraceparent(value: unknown): string | null {
  const parsed = parseTraceparent(value);
  return parsed ? formatTraceparent(parsed) : null;
}
