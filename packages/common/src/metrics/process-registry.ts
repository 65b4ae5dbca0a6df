import { collectDefaultMetrics, Registry } from 'prom-client';

let shared: Registry | null = null;

/**
 * The process's own metrics (CPU, memory, event-loop delay, garbage collection, handles): one registry per process,
 * made on first use. Its collectors (an event-loop delay monitor, a GC observer) live as long as the process, so
 * they are never made again for each server or node a process runs (tests run many).
 */
export function processRegistry(): Registry {
  if (!shared) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared, eventLoopMonitoringPrecision: 10 });
  }
  return shared;
}
