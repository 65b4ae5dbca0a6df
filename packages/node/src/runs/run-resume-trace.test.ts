/**
 * A run a restarted node picks up again gets a span in its task's trace (docs/observability.md#traces): from the
 * context its record kept, or, for a record that kept none, from its task as the server gives it; the node's calls
 * for the run carry that span's context.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryTracing, spanLeaks } from '@federa/testing';
import type { ContainerRuntime } from '../runtime/index.js';
import type { RestClient } from '../server-client/rest-client.js';
import { RunTraces } from '../tracing/run-traces.js';
import { RunManager } from './run-manager.js';
import type { RunManagerOptions } from './run-options.js';
import { RunStore } from './run-store.js';

const KEPT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const FROM_TASK = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-run-resume-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A node restarted with `records` in its run record and none of their containers left. */
async function restarted(name: string, records: Parameters<RunStore['put']>[0][], tracing = true) {
  const store = await RunStore.open(join(dir, name, 'runs.json'));
  for (const r of records) await store.put(r);
  const memory = memoryTracing('federa-node');
  const traces = new RunTraces(tracing ? memory.tracing : null);
  const calls: { method: string; path: string; traceparent: string | undefined }[] = [];
  const rest = {
    request: async (method: string, path: string) => {
      calls.push({ method, path, traceparent: traces.traceparent() });
      if (path === '/task/9') return { status: 200, body: { id: 9, traceparent: FROM_TASK } };
      if (path === '/result/8') return { status: 200, body: { id: 8, finished_at: '2026-01-01T00:00:00Z' } };
      return { status: 200, body: {} };
    },
  } as unknown as RestClient;
  const runtime = {
    listContainers: async () => [],
    inspectContainer: async () => undefined,
    removeContainerIfExists: async () => false,
  } as unknown as ContainerRuntime;
  const abort = new AbortController();
  const options = {
    runtime,
    rest,
    store,
    traces,
    log: pino({ level: 'silent' }),
    config: { reviewDir: join(dir, name, 'review') },
    names: { node: 'node-1', prefix: 'federa' },
    identity: { nodeId: 1, organizationId: 1, collaborationId: 1 },
    volumeDir: join(dir, name, 'volume'),
    emitStatus: () => undefined,
    signal: abort.signal,
  } as unknown as RunManagerOptions;
  const manager = new RunManager(options);
  await manager.reattach();
  await manager.idle();
  abort.abort();
  return { spans: memory.spans, calls, store };
}

const record = (resultId: number, taskId: number, extra: object = {}) => ({
  resultId,
  taskId,
  runId: resultId + 100,
  image: 'algo',
  containerName: `algo-${resultId}`,
  phase: 'running' as const,
  since: new Date().toISOString(),
  ...extra,
});

describe('a run picked up again after a restart', () => {
  it('has a span in its task’s trace, from its record’s context or its task’s, and its calls carry it', async () => {
    const report = {
      status: 'completed',
      result: 'c2VjcmV0LW91dHB1dA==',
      log: 'secret-log',
      finished_at: 'x',
    };
    const { spans, calls, store } = await restarted('both', [
      record(7, 3, { phase: 'reporting', traceparent: KEPT, report }),
      record(8, 9),
    ]);
    const runs = spans()
      .filter((s) => s.name === 'run')
      .sort((a, b) => Number(a.attributes['federa.result.id']) - Number(b.attributes['federa.result.id']));
    expect(
      runs.map((s) => [
        s.attributes['federa.result.id'],
        s.spanContext().traceId,
        s.parentSpanContext?.spanId,
        s.attributes['federa.run.resumed'],
      ]),
    ).toEqual([
      [7, KEPT.slice(3, 35), KEPT.slice(36, 52), true],
      [8, FROM_TASK.slice(3, 35), FROM_TASK.slice(36, 52), true],
    ]);
    const context = (s: (typeof runs)[number]) =>
      `00-${s.spanContext().traceId}-${s.spanContext().spanId}-01`;
    expect([...calls].sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { method: 'PATCH', path: '/result/7', traceparent: context(runs[0]!) },
      { method: 'GET', path: '/result/8', traceparent: context(runs[1]!) },
      // The record of run 8 kept no context: it is read from its task, outside any span.
      { method: 'GET', path: '/task/9', traceparent: undefined },
    ]);
    expect(spanLeaks(spans(), ['secret-log', 'c2VjcmV0LW91dHB1dA=='])).toEqual([]);
    expect(store.all()).toEqual([]);
  });

  it('has no span when its task has no context, and the node reads no task with tracing off', async () => {
    const none = await restarted('none', [record(8, 10)]);
    expect(none.spans()).toEqual([]);
    expect(none.calls.map((c) => c.path)).toEqual(['/task/10', '/result/8']);
    const off = await restarted('off', [record(8, 9)], false);
    expect(off.calls).toEqual([{ method: 'GET', path: '/result/8', traceparent: undefined }]);
  });
});
