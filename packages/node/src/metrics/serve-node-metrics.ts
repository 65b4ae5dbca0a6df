import type { Logger } from 'pino';
import { listenMetrics, type MetricsListener } from '@federa/common';
import type { NodeConfig } from '../config/node-config.js';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import { StartupError } from '../errors.js';
import type { NodeMetrics } from './node-metrics.js';
import { type NodeMetricSources } from './node-metrics.js';

/**
 * Serves the node's metrics where `metrics` of its configuration says (docs/observability.md).
 * @returns the URL scraped, or null when the configuration names no metrics port.
 */
export async function serveNodeMetrics(o: {
  config: NodeConfig;
  metrics: NodeMetrics;
  log: Logger;
  runtime: ContainerRuntime;
  names: { node: string };
  runs: { activeRuns: readonly unknown[] };
  channel: { connected: boolean };
  /** Where the listener's close is added. */
  cleanups: (() => Promise<void> | void)[];
}): Promise<{ url: string } | null> {
  const { config, metrics, log } = o;
  metrics.watch({
    activeRuns: () => o.runs.activeRuns.length,
    connected: () => o.channel.connected,
    containers: algorithmContainers(o.runtime, o.names.node),
  });
  const where = config.metrics;
  if (!where) return null;
  let listener: MetricsListener;
  try {
    listener = await listenMetrics({
      ip: where.ip,
      port: where.port,
      path: where.path,
      access: where,
      text: () => metrics.text(),
      onError: (error) =>
        log.error({ event: 'metrics.failed', err: String(error) }, 'the metrics could not be collected'),
    });
  } catch (cause) {
    throw new StartupError(
      `the metrics cannot listen on ${where.ip}:${where.port}: ${(cause as Error).message}`,
      {
        cause,
      },
    );
  }
  const host = where.ip.includes(':') ? `[${where.ip}]` : where.ip === '0.0.0.0' ? '127.0.0.1' : where.ip;
  const url = `http://${host}:${listener.port}${where.path}`;
  log.info({ event: 'metrics.listening', url }, 'metrics served');
  o.cleanups.push(() => listener.close());
  return { url };
}

/** The running algorithm containers of this node, for the metrics' CPU and memory figures. */
export function algorithmContainers(
  runtime: ContainerRuntime,
  node: string,
): NonNullable<NodeMetricSources['containers']> {
  return async () => {
    const stats = runtime.stats?.bind(runtime);
    if (!stats) return { ids: [], stats: async () => undefined };
    const list = await runtime.listContainers({ 'vantage6-type': 'algorithm', node });
    return { ids: list.filter((c) => c.status === 'running').map((c) => c.id), stats };
  };
}
