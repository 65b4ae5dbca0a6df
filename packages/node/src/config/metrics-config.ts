/** The node's `metrics` key: where Prometheus scrapes the node (docs/observability.md). */
import type { RawNodeConfig } from './schema.js';

export interface NodeMetricsConfig {
  readonly ip: string;
  readonly port: number;
  readonly path: string;
  readonly token?: string;
}

/** Loopback and `/metrics` unless the key says otherwise; no key, no endpoint. */
export function normaliseMetrics(raw: RawNodeConfig['metrics']): NodeMetricsConfig | undefined {
  if (!raw) return undefined;
  return {
    ip: raw.ip ?? '127.0.0.1',
    port: raw.port,
    path: raw.path ?? '/metrics',
    ...(raw.token !== undefined ? { token: raw.token } : {}),
  };
}
