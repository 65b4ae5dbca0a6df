/**
 * The SDK's part in a task's trace: the requests that prepare and post a task carry one new `traceparent`, and
 * the later reads of that task carry the same one, so that a tracing server records them in one trace. Real
 * server with tracing into memory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { memoryTracing, ROOT_PASSWORD, startTestApp, type TestApp } from '@federa/testing';
import { newTraceparent, TaskTraces } from './trace-context.js';
import { UserClient } from './user-client.js';

const traced = memoryTracing('federa-server');
let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await startTestApp({ tracing: traced.tracing });
  port = await t.listen();
});
afterAll(async () => t?.close());

describe('newTraceparent', () => {
  it('makes version 00 values of a new, sampled trace each time', () => {
    const values = new Set(Array.from({ length: 50 }, () => newTraceparent()));
    expect(values.size).toBe(50);
    for (const v of values) expect(v).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });
});

describe('TaskTraces', () => {
  it('forgets the oldest task past its limit', () => {
    const traces = new TaskTraces();
    for (let id = 1; id <= TaskTraces.LIMIT + 1; id++) traces.remember(id, `tp-${id}`);
    expect(traces.of(1)).toBeUndefined();
    expect(traces.of(2)).toBe('tp-2');
  });
});

describe('a task created with the SDK', () => {
  it('is posted and read back in one trace', async () => {
    const c = new UserClient({ host: 'http://127.0.0.1', port, apiPath: '/api', warn: () => undefined });
    await c.authenticate('root', ROOT_PASSWORD);
    const tag = Math.random().toString(36).slice(2, 8);
    const org = await c.organization.create({ name: `Trace ${tag}` });
    const mine = (await c.user.me()).organization.id;
    const collab = await c.collaboration.create({ name: `Trace ${tag}`, organizationIds: [mine, org.id] });
    await c.node.create({ collaborationId: collab.id, organizationId: org.id });
    traced.clear();
    const task = await c.task.create({
      collaborationId: collab.id,
      organizations: [org.id],
      name: 'traced',
      image: 'federa/average-ts:local',
      input: { method: 'partial_average', args: ['age'] },
    });
    await c.task.get(task.id);
    await c.result.fromTask(task.id);
    const spans = traced.spans();
    // In the order they began (a request's span ends after its answer, new_task goes out as the answer is sent).
    const names = [...spans]
      .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])
      .map((s) => s.name);
    expect(names).toEqual([
      'GET /api/collaboration/:id',
      'POST /api/task',
      'new_task',
      'GET /api/task/:id',
      'GET /api/task/:id/result',
    ]);
    const traceIds = new Set(spans.map((s) => s.spanContext().traceId));
    expect(traceIds.size).toBe(1);
    // The task keeps the POST's context: the nodes' spans join the same trace.
    expect(task.traceparent).toBe(
      `00-${[...traceIds][0]}-${spans.find((s) => s.name === 'POST /api/task')!.spanContext().spanId}-01`,
    );
    // Reads of other things are in no trace: the server makes no span for them.
    const before = traced.spans().length;
    await c.organization.get(org.id);
    expect(traced.spans()).toHaveLength(before);
  });
});
