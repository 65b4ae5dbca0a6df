import { describe, expect, it } from 'vitest';
import type { ContainerRuntime, ContainerSpec } from '../runtime/container-runtime.js';
import { meteredRuntime } from './metered-runtime.js';
import { NodeMetrics } from './node-metrics.js';
import { proxyRoute } from './proxy-observer.js';

/** The value of one sample of the Prometheus text, or undefined when the series is absent. */
function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

const spec = (labels: Record<string, string>): ContainerSpec => ({
  name: 'c',
  image: 'i',
  env: {},
  mounts: [],
  labels,
});

describe("the node's metrics", () => {
  it("label an algorithm's proxy calls by route pattern, and any path the node does not know as other", () => {
    expect(proxyRoute('/task/12/result?x=1')).toBe('/task/:id/result');
    expect(proxyRoute('/result/7/')).toBe('/result/:id');
    expect(proxyRoute('/organization/3')).toBe('/organization/:id');
    expect(proxyRoute('/made/up/path-1')).toBe('other');
    expect(proxyRoute('/task/abc')).toBe('other');
    expect(proxyRoute(undefined)).toBe('other');
  });

  it('time algorithm containers and image pulls, never helper containers, and read CPU and memory when scraped', async () => {
    const metrics = new NodeMetrics();
    let cpu = 1.5;
    const fake = {
      runContainer: async (s: ContainerSpec) => {
        if (s.labels.fail) throw new Error('no start');
        return { id: `id-${s.labels.n ?? 'x'}`, name: 'c' };
      },
      waitForExit: async () => ({ exitCode: 3 }),
      pullIfNewer: async () => ({ action: 'pulled' as const }),
      remove: async () => undefined,
      listContainers: async () => [],
    } as unknown as ContainerRuntime;
    const runtime = meteredRuntime(fake, metrics);
    const handle = await runtime.runContainer(spec({ 'vantage6-type': 'algorithm', n: '1' }));
    await runtime.runContainer(spec({ 'vantage6-type': 'helper' }));
    await expect(runtime.runContainer(spec({ 'vantage6-type': 'algorithm', fail: '1' }))).rejects.toThrow();
    await runtime.waitForExit(handle);
    await runtime.pullIfNewer('image:1');
    metrics.watch({
      activeRuns: () => 2,
      connected: () => true,
      containers: async () => ({
        ids: ['a', 'b'],
        stats: async (id) => (id === 'a' ? { cpuSeconds: cpu, memoryBytes: 1000 } : undefined),
      }),
    });
    let text = (await metrics.text()).body;
    expect(sample(text, 'federa_node_container_start_seconds_count{outcome="started"}')).toBe(1);
    expect(sample(text, 'federa_node_container_start_seconds_count{outcome="failed"}')).toBe(1);
    expect(sample(text, 'federa_node_container_run_seconds_count{exit="nonzero"}')).toBe(1);
    expect(sample(text, 'federa_node_image_pulls_total{action="pulled"}')).toBe(1);
    expect(sample(text, 'federa_node_runs_active')).toBe(2);
    expect(sample(text, 'federa_node_server_connected')).toBe(1);
    expect(sample(text, 'federa_node_algorithm_containers')).toBe(1);
    expect(sample(text, 'federa_node_algorithm_memory_bytes')).toBe(1000);
    expect(sample(text, 'federa_node_algorithm_cpu_seconds_total')).toBe(1.5);
    cpu = 4;
    const [one, two] = await Promise.all([metrics.text(), metrics.text()]);
    text = two.body;
    expect(one.body).toContain('federa_node_algorithm_cpu_seconds_total 4');
    expect(sample(text, 'federa_node_algorithm_cpu_seconds_total')).toBe(4);
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });
});
