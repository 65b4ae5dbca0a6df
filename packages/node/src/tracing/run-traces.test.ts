/**
 * The node's spans from what it is handed: a run's span hangs from its task's context, and only a context that
 * is one; an algorithm's call through the proxy hangs from its own run's span, found from its token, and a token
 * that names no run here (or a header that is no token) gets no span.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { memoryTracing } from '@federa/testing';
import { RunTraces } from './run-traces.js';

const TASK_CONTEXT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const run = (traceparent: unknown) => ({ resultId: 5, taskId: 9, runId: 3, parentId: null, traceparent });
const jwt = (claims: object): string =>
  `Bearer x.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.y`;

/** A request and an answer as the proxy's server hands them over. */
function call(url: string, authorization?: string): { req: IncomingMessage; res: ServerResponse } {
  const req = { method: 'POST', url, headers: authorization ? { authorization } : {} } as IncomingMessage;
  const res = Object.assign(new EventEmitter(), { statusCode: 201 }) as unknown as ServerResponse;
  return { req, res };
}

describe('RunTraces', () => {
  it('hangs a run and the fetch that brought it from the task’s context, and ends the run once', () => {
    const { tracing, spans } = memoryTracing('federa-node');
    const traces = new RunTraces(tracing);
    const span = traces.startRun(run(TASK_CONTEXT), Date.now() - 50);
    expect(span).toBeDefined();
    traces.endRun(5);
    traces.endRun(5);
    expect(spans().map((s) => [s.name, s.parentSpanContext?.spanId, s.spanContext().traceId])).toEqual([
      ['fetch task', '00f067aa0ba902b7', '4bf92f3577b34da6a3ce929d0e0e4736'],
      ['run', '00f067aa0ba902b7', '4bf92f3577b34da6a3ce929d0e0e4736'],
    ]);
    expect(spans()[1]!.attributes).toEqual({
      'federa.task.id': 9,
      'federa.result.id': 5,
      'federa.run.id': 3,
    });
  });

  it('makes no span for a task without a context, or with something else in its place', () => {
    const { tracing, spans } = memoryTracing('federa-node');
    const traces = new RunTraces(tracing);
    for (const bad of [
      undefined,
      null,
      42,
      '',
      'x'.repeat(55),
      `${TASK_CONTEXT}-extra`,
      TASK_CONTEXT.toUpperCase(),
    ])
      expect(traces.startRun(run(bad))).toBeUndefined();
    expect(spans()).toEqual([]);
  });

  it('hangs an algorithm’s call from its run’s span, and the calls it makes to the server from the call', async () => {
    const { tracing, spans } = memoryTracing('federa-node');
    const traces = new RunTraces(tracing);
    const runSpan = traces.startRun(run(TASK_CONTEXT))!;
    const { req, res } = call('/task?x=secret', jwt({ sub: { type: 'container', task_id: 9 } }));
    const sent = await traces.proxyCall(req, res, async () => traces.traceparent());
    res.emit('close');
    const proxied = spans().find((s) => s.name === 'proxy POST /task')!;
    expect(proxied.parentSpanContext?.spanId).toBe(runSpan.spanContext().spanId);
    expect(proxied.attributes).toEqual({
      'http.request.method': 'POST',
      'http.route': '/task',
      'http.response.status_code': 201,
    });
    expect(sent).toBe(`00-4bf92f3577b34da6a3ce929d0e0e4736-${proxied.spanContext().spanId}-01`);
  });

  it('gives no span to a call whose token names no run here, or that has no token', async () => {
    const { tracing, spans } = memoryTracing('federa-node');
    const traces = new RunTraces(tracing);
    traces.startRun(run(TASK_CONTEXT));
    for (const auth of [undefined, 'Bearer not-a-jwt', jwt({ sub: { task_id: 10 } }), jwt({ sub: 'x' })]) {
      const { req, res } = call('/task', auth);
      expect(await traces.proxyCall(req, res, async () => traces.traceparent())).toBeUndefined();
      res.emit('close');
    }
    expect(spans()).toEqual([]);
  });

  it('does nothing without tracing', async () => {
    const traces = new RunTraces(null);
    expect(traces.startRun(run(TASK_CONTEXT))).toBeUndefined();
    const { req, res } = call('/task', jwt({ sub: { task_id: 9 } }));
    expect(await traces.proxyCall(req, res, async () => 'handled')).toBe('handled');
    expect(traces.traceparent()).toBeUndefined();
  });
});
