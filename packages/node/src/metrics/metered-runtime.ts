import type { ContainerHandle, ContainerRuntime } from '../runtime/container-runtime.js';
import type { NodeMetrics } from './node-metrics.js';

/** The label that marks a node's algorithm containers (runs/naming.ts `algorithmLabels`). */
const ALGORITHM = (labels: Readonly<Record<string, string>>): boolean =>
  labels['vantage6-type'] === 'algorithm';

/**
 * The runtime, with algorithm containers' starts and runs and every image pull timed in the metrics. Helper
 * containers (network helpers, the VPN client) are not counted.
 */
export function meteredRuntime(runtime: ContainerRuntime, metrics: NodeMetrics): ContainerRuntime {
  /** When each algorithm container this process started began to run (a reattached one is not timed). */
  const started = new Map<string, number>();
  const overrides: Partial<ContainerRuntime> = {
    async runContainer(spec) {
      if (!ALGORITHM(spec.labels)) return runtime.runContainer(spec);
      const end = metrics.containerStart.startTimer();
      try {
        const handle = await runtime.runContainer(spec);
        end({ outcome: 'started' });
        started.set(handle.id, performance.now());
        return handle;
      } catch (error) {
        end({ outcome: 'failed' });
        throw error;
      }
    },
    async waitForExit(handle: ContainerHandle, options) {
      const exit = await runtime.waitForExit(handle, options);
      const at = started.get(handle.id);
      if (at !== undefined) {
        started.delete(handle.id);
        metrics.containerRun.observe(
          { exit: exit.exitCode === 0 ? 'zero' : 'nonzero' },
          (performance.now() - at) / 1000,
        );
      }
      return exit;
    },
    async pullIfNewer(ref, credentials) {
      const end = metrics.imagePullSeconds.startTimer();
      try {
        const result = await runtime.pullIfNewer(ref, credentials);
        metrics.imagePulls.inc({ action: result.action });
        return result;
      } catch (error) {
        metrics.imagePulls.inc({ action: 'failed' });
        throw error;
      } finally {
        end();
      }
    },
    async remove(handle) {
      started.delete(handle.id);
      return runtime.remove(handle);
    },
  };
  return new Proxy(runtime, {
    get(target, key, receiver) {
      if (typeof key === 'string' && key in overrides) return overrides[key as keyof ContainerRuntime];
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
