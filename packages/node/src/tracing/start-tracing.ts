import type { Logger } from 'pino';
import { Tracing } from '@federa/common/tracing';
import type { NodeConfig } from '../config/node-config.js';
import type { StartNodeOptions } from '../node-options.js';
import { NODE_VERSION } from '../version.js';
import { RunTraces } from './run-traces.js';

/**
 * The node's tracing as its `tracing` key says (or as the caller gives it); the spans not sent yet go out when the
 * node stops (the last of its clean-ups).
 */
export function startTracing(
  config: NodeConfig,
  options: Pick<StartNodeOptions, 'tracing'>,
  log: Logger,
  cleanups: (() => Promise<void> | void)[],
): RunTraces {
  if (options.tracing) {
    const given = options.tracing;
    cleanups.push(() => given.flush());
    return new RunTraces(given);
  }
  const tracing = Tracing.fromConfig(config.tracing, {
    serviceName: 'federa-node',
    serviceVersion: NODE_VERSION,
    onExportError: (message) =>
      log.warn(
        { event: 'tracing.export_failed', err: message },
        'spans could not be sent to the tracing collector; they are dropped until it answers',
      ),
  });
  if (tracing) {
    cleanups.push(() => tracing.shutdown());
    log.info(
      { event: 'tracing.on', collector: new URL(config.tracing?.endpoint ?? '').origin },
      'spans are sent to the collector',
    );
  }
  return new RunTraces(tracing);
}
