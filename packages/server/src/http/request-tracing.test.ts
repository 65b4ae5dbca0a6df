/**
 * The server's spans (docs/observability.md#traces): one per request, the child of the caller's `traceparent`; a
 * task keeps its creating request's context and `new_task` hangs from it; a container's sub-task is the child of the
 * container's call; and no span holds a task's input or anything but the listed attributes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SpanKind } from '@federa/common/tracing';
import {
  memoryTracing,
  RecordingEventBus,
  spanLeaks,
  startTestApp,
  taskBody,
  taskWorld,
  type TestApp,
} from '@federa/testing';

const CLIENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const IMAGE = 'harbor.example.org/algorithms/average:1.0';

const traced = memoryTracing('federa-server');
let t: TestApp;
let w: Awaited<ReturnType<typeof taskWorld>>;
const events = new RecordingEventBus();
beforeAll(async () => {
  t = await startTestApp({ tracing: traced.tracing, events });
  w = await taskWorld(t);
});
afterAll(async () => t.close());
beforeEach(() => traced.clear());

const spanNamed = (name: string) => {
  const found = traced.spans().filter((s) => s.name === name);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0]!;
};

describe('request spans', () => {
  it('are children of the caller’s traceparent, named by method and route pattern', async () => {
    const r = await t.api('GET', `/organization/${w.orgA}`, {
      token: w.token,
      headers: { traceparent: CLIENT },
    });
    expect(r.status).toBe(200);
    const span = spanNamed('GET /api/organization/:id');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(CLIENT_TRACE);
    expect(span.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(span.attributes).toEqual({
      'http.request.method': 'GET',
      'http.route': '/api/organization/:id',
      'http.response.status_code': 200,
    });
  });

  it('are not made for a request outside any trace: no traceparent, an unsampled one, or one that is not one', async () => {
    for (const header of [
      undefined,
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00',
      'garbage',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
    ]) {
      await t.api('GET', '/version', header ? { headers: { traceparent: header } } : {});
      expect(traced.spans(), String(header)).toEqual([]);
    }
  });

  it('start traces of their own for the share of other requests that tracing.new_trace_ratio names', async () => {
    const all = memoryTracing('federa-server');
    const app = await startTestApp({
      tracing: all.tracing,
      config: { tracing: { endpoint: 'http://127.0.0.1:9/v1/traces', new_trace_ratio: 1 } },
    });
    try {
      await app.api('GET', '/version', { headers: { traceparent: 'garbage' } });
      const span = all.spans().find((s) => s.name.endsWith('/version'));
      expect(span?.name).toBe('GET /api/version');
      expect(span?.parentSpanContext).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it('name a request that matched no route by its method only, never by its path', async () => {
    await t.api('GET', '/no-such-route/secret-looking-name', { headers: { traceparent: CLIENT } });
    const [span] = traced.spans();
    expect(span?.name).toBe('GET unmatched');
    expect(JSON.stringify(span?.attributes)).not.toContain('secret-looking-name');
  });
});

describe('a task’s trace', () => {
  it('is kept on the task, and new_task and the sub-task’s request hang from it, with no content in any span', async () => {
    const body = taskBody(w.collab, [w.orgA, w.orgB], {
      image: IMAGE,
      name: 'secret-task-name',
      description: 'secret-description',
    });
    const r = await t.api('POST', '/task', { token: w.token, body, headers: { traceparent: CLIENT } });
    expect(r.status).toBe(201);
    const post = spanNamed('POST /api/task');
    expect(post.spanContext().traceId).toBe(CLIENT_TRACE);
    expect(post.attributes['federa.task.id']).toBe(r.body.id);
    // The answer and every later read show the context the nodes' spans hang from: the POST's span.
    const context = `00-${CLIENT_TRACE}-${post.spanContext().spanId}-01`;
    expect(r.body.traceparent).toBe(context);
    expect((await t.api('GET', `/task/${r.body.id}`, { token: w.token })).body.traceparent).toBe(context);
    const announced = spanNamed('new_task');
    expect(announced.kind).toBe(SpanKind.PRODUCER);
    expect(announced.parentSpanContext?.spanId).toBe(post.spanContext().spanId);
    expect(announced.attributes).toEqual({ 'federa.task.id': r.body.id, 'federa.task.organizations': 2 });
    expect(events.emitted.some((e) => e.event === 'new_task' && e.payload === r.body.id)).toBe(true);

    // The algorithm's call through its node's proxy carries the proxy span's context; the sub-task keeps its own.
    const token = (
      await t.api('POST', '/token/container', {
        token: await w.nodeB.token(),
        body: { task_id: r.body.id, image: IMAGE },
      })
    ).body.container_token as string;
    const proxySpan = `00-${CLIENT_TRACE}-1111111111111111-01`;
    traced.clear();
    const sub = await t.api('POST', '/task', {
      token,
      headers: { traceparent: proxySpan },
      body: {
        collaboration_id: w.collab,
        organizations: [{ id: w.orgB, input: 'secret-sub-input' }],
        image: IMAGE,
      },
    });
    expect(sub.status).toBe(201);
    const subPost = spanNamed('POST /api/task');
    expect(subPost.parentSpanContext?.spanId).toBe('1111111111111111');
    expect(subPost.attributes['federa.parent_task.id']).toBe(r.body.id);
    expect(sub.body.traceparent).toBe(`00-${CLIENT_TRACE}-${subPost.spanContext().spanId}-01`);

    const secrets = [
      ...body.organizations.map((o) => o.input),
      'secret-sub-input',
      'secret-task-name',
      'secret-description',
    ];
    expect(spanLeaks(traced.spans(), secrets)).toEqual([]);
  });
});

describe('a task posted without a traceparent', () => {
  it('begins a trace of its own, which the task keeps', async () => {
    const r = await t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA]) });
    expect(r.status).toBe(201);
    const post = spanNamed('POST /api/task');
    expect(post.parentSpanContext).toBeUndefined();
    expect(r.body.traceparent).toBe(`00-${post.spanContext().traceId}-${post.spanContext().spanId}-01`);
  });

  it('on the 4.x surface too', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/v4/api/task',
      headers: { authorization: `Bearer ${w.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify(taskBody(w.collab, [w.orgA], { study_id: null, store_id: null })),
    });
    expect(r.statusCode, r.body).toBe(201);
    const post = spanNamed('POST /v4/api/task');
    expect(post.parentSpanContext).toBeUndefined();
    expect(post.attributes['federa.task.id']).toBe((JSON.parse(r.body) as { id: number }).id);
  });
});

describe('with tracing off', () => {
  it('a task keeps the caller’s own traceparent, so that the nodes’ spans still join the caller’s trace', async () => {
    const off = await startTestApp();
    try {
      const world = await taskWorld(off);
      const r = await off.api('POST', '/task', {
        token: world.token,
        body: taskBody(world.collab, [world.orgA]),
        headers: { traceparent: CLIENT },
      });
      expect(r.body.traceparent).toBe(CLIENT);
      const plain = await off.api('POST', '/task', {
        token: world.token,
        body: taskBody(world.collab, [world.orgA]),
      });
      expect(plain.status).toBe(201);
      expect(plain.body).not.toHaveProperty('traceparent');
    } finally {
      await off.close();
    }
  });
});
