/**
 * The client's part in a task's trace (docs/observability.md#traces): `POST /task` and the requests that prepare it
 * send a new W3C `traceparent`, and the later reads of that task (its status, its results) send the same one, so
 * that a tracing server and its nodes show the whole task, from the post to the researcher's read, as one trace.
 * The client itself records no spans.
 */

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** A `traceparent` of a new trace, sampled (`-01`): its ids random and never all zero. */
export function newTraceparent(): string {
  const ids = new Uint8Array(24);
  do crypto.getRandomValues(ids);
  while (ids.subarray(0, 16).every((b) => b === 0) || ids.subarray(16).every((b) => b === 0));
  return `00-${hex(ids.subarray(0, 16))}-${hex(ids.subarray(16))}-01`;
}

/** The trace context of each task this client created, the newest {@link TaskTraces.LIMIT} kept. */
export class TaskTraces {
  static readonly LIMIT = 1_000;
  readonly #byTask = new Map<number, string>();

  remember(taskId: number, traceparent: string): void {
    this.#byTask.set(taskId, traceparent);
    if (this.#byTask.size > TaskTraces.LIMIT) this.#byTask.delete(this.#byTask.keys().next().value as number);
  }

  /** The context of a task this client created, if it still knows it. */
  of(taskId: number): string | undefined {
    return this.#byTask.get(taskId);
  }
}
