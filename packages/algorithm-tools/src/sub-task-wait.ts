/**
 * Waiting for a sub-task: a Federa node's proxy holds `GET /task/{id}?wait=<s>` until the task completes
 * (docs/container-environment.md#waiting-for-a-sub-task), so the container does not poll; a proxy without it
 * (vantage6 3.x), or one holding too many waits, is polled instead.
 */
import type { AlgorithmClientErrors } from './algorithm-client-errors.js';
import type { ProxyConnection } from './proxy-connection.js';
import type { SubTaskWaitOptions } from './sub-task-types.js';

/** Seconds of one long-poll; the proxy answers sooner when the task completes. */
const LONG_POLL_SECONDS = 30;

/** Waits for sub-tasks through one proxy, remembering whether that proxy holds long-polls. */
export class SubTaskWaiter {
  readonly #connection: ProxyConnection;
  readonly #errors: AlgorithmClientErrors;
  /** Reads a task (the client's `getTask`), for the polling fallback. */
  readonly #getTask: (taskId: number) => Promise<{ complete?: boolean }>;
  /** The proxy holds long-polls of tasks (until one answer without the header says otherwise). */
  #longPoll = true;

  constructor(
    connection: ProxyConnection,
    errors: AlgorithmClientErrors,
    getTask: (taskId: number) => Promise<{ complete?: boolean }>,
  ) {
    this.#connection = connection;
    this.#errors = errors;
    this.#getTask = getTask;
  }

  /** Waits until the task is complete: long-polls, else polls after 200 ms, then doubling up to `intervalMs`. */
  async wait(taskId: number, options: SubTaskWaitOptions = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? 600_000;
    const maxInterval = options.intervalMs ?? 1_000;
    const deadline = Date.now() + timeoutMs;
    let interval = Math.min(maxInterval, 200);
    for (;;) {
      options.signal?.throwIfAborted();
      let answer: 'complete' | 'pending' | 'unavailable' = 'unavailable';
      if (this.#longPoll) {
        const seconds = Math.min(LONG_POLL_SECONDS, Math.floor((deadline - Date.now()) / 1000));
        answer = await this.#longPollTask(taskId, Math.max(0, seconds));
        if (answer === 'pending' && seconds > 0 && deadline - Date.now() > 0) continue;
      }
      if (answer === 'complete') return;
      if (answer === 'unavailable' && (await this.#getTask(taskId)).complete === true) return;
      if (deadline - Date.now() <= 0) throw this.#errors.timeout(taskId, timeoutMs);
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          options.signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(interval, Math.max(0, deadline - Date.now())));
        options.signal?.addEventListener('abort', done);
      });
      interval = Math.min(interval * 2, maxInterval);
    }
  }

  /**
   * One long-poll: `complete`, `pending` (the wait ended first), or `unavailable` when this proxy does not hold
   * waits (it is then polled from now on) or holds too many now (503: polled this once).
   */
  async #longPollTask(taskId: number, seconds: number): Promise<'complete' | 'pending' | 'unavailable'> {
    let answer: { body: { complete?: unknown } | null; waitOutcome: string | null };
    try {
      answer = await this.#connection.exchange<{ complete?: unknown } | null>(
        'GET',
        `/task/${taskId}?wait=${seconds}`,
        undefined,
        this.#connection.timeoutMs + seconds * 1000,
        false,
      );
    } catch (error) {
      if ((error as { status?: unknown }).status === 503) return 'unavailable';
      throw error;
    }
    if (answer.body?.complete === true) return 'complete';
    if (answer.waitOutcome === null) {
      this.#longPoll = false;
      return 'unavailable';
    }
    return 'pending';
  }
}
