/**
 * The node's spans (docs/observability.md#traces). A run's span hangs from the trace context its task carries
 * (the researcher's `POST /task`, or the algorithm's call that created a sub-task); the node's calls made while
 * the run goes on, its container's start and the algorithm's calls through the proxy hang from the run's span,
 * and each call to the server sends its span's `traceparent`. Without tracing every method does nothing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeJwt, parseTraceparent, type TraceAttributes } from '@federa/common';
import { SpanKind, failSpan, type Span, type Tracing } from '@federa/common/tracing';
import { proxyRoute } from '../metrics/proxy-observer.js';

/** What a run's span is made from: its ids and the context its task carries. */
export interface TracedRun {
  readonly resultId: number;
  readonly taskId: number;
  readonly runId: number;
  readonly parentId: number | null;
  /** The task's `traceparent` as the server gave it (checked here). */
  readonly traceparent: unknown;
}

export class RunTraces {
  readonly #tracing: Tracing | null;
  /** The span of each run in progress, by result id, and the result id of each task's run here. */
  readonly #runs = new Map<number, { span: Span; taskId: number }>();
  readonly #taskRuns = new Map<number, number>();

  constructor(tracing: Tracing | null) {
    this.#tracing = tracing;
  }

  get on(): boolean {
    return this.#tracing !== null;
  }

  /**
   * The span of a run taken on now, and the span of the fetch that brought it (from `fetchedSince`, when the
   * fetch began); none when tracing is off or the task carries no context.
   */
  startRun(run: TracedRun, fetchedSince?: number): Span | undefined {
    return this.#begin(run, fetchedSince, false);
  }

  /**
   * The span of a run picked up again after the node restarted (docs/reliability.md), in its task's trace as the
   * first `run` was: the span of the process that stopped was never sent.
   */
  resumeRun(run: TracedRun): Span | undefined {
    return this.#begin(run, undefined, true);
  }

  #begin(run: TracedRun, fetchedSince: number | undefined, resumed: boolean): Span | undefined {
    const tracing = this.#tracing;
    if (!tracing || !parseTraceparent(run.traceparent)) return undefined;
    const parent = run.traceparent as string;
    const attributes: TraceAttributes = {
      'federa.task.id': run.taskId,
      'federa.result.id': run.resultId,
      'federa.run.id': run.runId,
      ...(run.parentId !== null ? { 'federa.parent_task.id': run.parentId } : {}),
      ...(resumed ? { 'federa.run.resumed': true } : {}),
    };
    if (fetchedSince !== undefined)
      tracing
        .start('fetch task', { parent, kind: SpanKind.CLIENT, attributes, startTime: fetchedSince })
        .end();
    const span = tracing.start('run', { parent, kind: SpanKind.CONSUMER, attributes });
    this.#runs.set(run.resultId, { span, taskId: run.taskId });
    this.#taskRuns.set(run.taskId, run.resultId);
    return span;
  }

  /** Runs `work` in the run's span (a run without one: as it is). */
  within<T>(span: Span | undefined, work: () => T): T {
    return span && this.#tracing ? this.#tracing.within(span, work) : work();
  }

  /** Ends a run's span. */
  endRun(resultId: number): void {
    const run = this.#runs.get(resultId);
    if (!run) return;
    this.#runs.delete(resultId);
    if (this.#taskRuns.get(run.taskId) === resultId) this.#taskRuns.delete(run.taskId);
    run.span.end();
  }

  /** Records the status a run was reported with on its span (a fixed word). */
  reported(status: string): void {
    this.#tracing?.current()?.setAttribute('federa.run.status', status);
  }

  /** Runs `work` in a child of the current span; without tracing, as it is. */
  step<T>(name: string, work: (span: Span | undefined) => Promise<T>): Promise<T> {
    const tracing = this.#tracing;
    if (!tracing?.current()) return work(undefined);
    return tracing.inSpan(name, {}, work);
  }

  /** Marks the current step failed by a fixed word. */
  failed(span: Span | undefined, errorType: string): void {
    if (span) failSpan(span, errorType);
  }

  /** The `traceparent` of the current span, for a call to the server. */
  readonly traceparent = (): string | undefined => this.#tracing?.traceparent();

  /**
   * A span for an algorithm's call through the proxy, the child of its run's span (found from the task its token
   * names), ended when the answer has gone; it is the current span while the call is handled. The route is a
   * pattern and the token is only read, never trusted: at worst a container hangs its calls under another run.
   */
  proxyCall<T>(req: IncomingMessage, res: ServerResponse, handle: () => T): T {
    const tracing = this.#tracing;
    if (!tracing) return handle();
    const resultId = this.#taskRuns.get(containerTaskId(req.headers.authorization) ?? -1);
    const parent = resultId === undefined ? undefined : this.#runs.get(resultId)?.span;
    if (!parent) return handle();
    const method = (req.method ?? 'GET').toUpperCase();
    const route = proxyRoute(req.url);
    const span = tracing.start(`proxy ${method} ${route}`, {
      parent,
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': method, 'http.route': route },
    });
    res.once('close', () => {
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) failSpan(span, String(res.statusCode));
      span.end();
    });
    return tracing.within(span, handle);
  }
}

/** The task id a container token names, if the header holds one. */
function containerTaskId(authorization: string | undefined): number | undefined {
  if (!authorization?.startsWith('Bearer ')) return undefined;
  try {
    const claims = decodeJwt(authorization.slice(7));
    const identity = (claims.sub ?? claims.identity) as { task_id?: unknown } | null | undefined;
    const id = identity && typeof identity === 'object' ? identity.task_id : undefined;
    return typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}
