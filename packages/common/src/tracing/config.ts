import { Type, type Static } from '@sinclair/typebox';

/**
 * The `tracing` configuration key of the server and the node (docs/observability.md#traces). Its presence turns
 * tracing on; `endpoint` is the only field it needs.
 */
export const TracingConfigSchema = Type.Object(
  {
    /** The collector's OTLP/HTTP traces URL, e.g. `http://collector:4318/v1/traces`. */
    endpoint: Type.String({ pattern: '^https?://[^\\s/?#]+(/[^\\s]*)?$', maxLength: 2048 }),
    /** `service.name` of the spans; default `federa-server` or `federa-node`. */
    service_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** Headers sent with each export, e.g. a collector's API key. */
    headers: Type.Optional(
      Type.Record(
        Type.String({ pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$" }),
        Type.String({ maxLength: 8192 }),
        { additionalProperties: false },
      ),
    ),
    /**
     * The share (0 to 1) of the server's requests without a sampled `traceparent` that start a trace of their own.
     * Default 0: only requests in a trace (a task's, or one a caller began) get spans.
     */
    new_trace_ratio: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    /** How often spans are sent, in milliseconds. */
    interval_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 60_000 })),
  },
  { additionalProperties: false },
);

export type TracingConfig = Static<typeof TracingConfigSchema>;
