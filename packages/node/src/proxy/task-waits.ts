/**
 * The proxy's long-poll of a task (a Federa extension, docs/container-environment.md#waiting-for-a-sub-task):
 * `GET /task/{id}?wait=<seconds>` is answered when the task is complete, or with the task as it is when the
 * seconds pass. The task is read from the server once, then again only when the node's socket hears about one of
 * its runs (`status_update`, `algorithm_status_change`), after a reconnection (events may have been missed), and
 * every `recheckMs` as a safety net. Containers of vantage6 3.x, which poll `GET /task/{id}`, are answered as before.
 */

/** A run of the collaboration changed, as the node's socket heard it. */
export interface RunChange {
  readonly taskId?: number;
  readonly resultId?: number;
}

type RunListener = (change: RunChange | null) => void;

/** Where the proxy hears about runs: the node publishes its socket's events here. */
export class RunEvents {
  readonly #listeners = new Set<RunListener>();

  /** A run changed; `null` when events may have been missed (a reconnection): every wait checks its task again. */
  publish(change: RunChange | null): void {
    for (const listener of this.#listeners) listener(change);
  }

  subscribe(listener: RunListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** Limits of the long-poll. */
export interface WaitLimits {
  /**
   * Waits held at once; one more is refused with 503.
   * @default 100
   */
  readonly maxWaiters?: number;
  /**
   * Longest wait of one request, in seconds; a longer `wait` is cut to this.
   * @default 60
   */
  readonly maxWaitSeconds?: number;
  /**
   * The task is read again this often while nothing is heard, in milliseconds.
   * @default 15000
   */
  readonly recheckMs?: number;
}

/** One reading of the task from the server. */
export interface TaskReading {
  readonly status: number;
  readonly body: Buffer;
}

/** How a wait ended: `complete`, `timeout` (the task as it is), `refused` (the server's answer is passed on). */
export type WaitOutcome = 'complete' | 'timeout' | 'refused' | 'closed';

/** Header of a long-poll answer, naming its outcome; its absence tells a client the proxy does not long-poll. */
export const WAIT_HEADER = 'x-federa-wait';

/** `wait` as a number of seconds, or a message naming what is wrong with it. */
export function parseWaitSeconds(raw: string, maxWaitSeconds: number): number | string {
  if (!/^\d{1,6}(\.\d{1,3})?$/.test(raw))
    return `wait must be a number of seconds from 0 to ${maxWaitSeconds}, not "${raw.slice(0, 20)}"`;
  return Math.min(Number(raw), maxWaitSeconds);
}

export class TaskWaits {
  readonly maxWaiters: number;
  readonly maxWaitSeconds: number;
  readonly #recheckMs: number;
  readonly #events: RunEvents | undefined;
  #active = 0;

  constructor(events: RunEvents | undefined, limits: WaitLimits = {}) {
    this.#events = events;
    this.maxWaiters = limits.maxWaiters ?? 100;
    this.maxWaitSeconds = limits.maxWaitSeconds ?? 60;
    this.#recheckMs = limits.recheckMs ?? 15_000;
  }

  /** Waits held now. */
  get active(): number {
    return this.#active;
  }

  get full(): boolean {
    return this.#active >= this.maxWaiters;
  }

  /**
   * Reads the task with `read` until it is complete, the server refuses, `seconds` pass or `signal` aborts (the
   * container went away). Resolves with the last reading.
   */
  async wait(
    taskId: number,
    seconds: number,
    read: () => Promise<TaskReading>,
    signal: AbortSignal,
  ): Promise<{ outcome: WaitOutcome; reading: TaskReading | undefined }> {
    this.#active++;
    const deadline = Date.now() + seconds * 1000;
    let resultIds = new Set<number>();
    let heard = false;
    let wake: (() => void) | null = null;
    const unsubscribe = this.#events?.subscribe((change) => {
      if (
        change === null ||
        change.taskId === taskId ||
        (change.resultId !== undefined && resultIds.has(change.resultId))
      ) {
        heard = true;
        wake?.();
      }
    });
    const onAbort = (): void => wake?.();
    signal.addEventListener('abort', onAbort);
    let reading: TaskReading | undefined;
    try {
      for (;;) {
        if (signal.aborted) return { outcome: 'closed', reading };
        heard = false;
        reading = await read();
        const task = parseTask(reading);
        if (!task) return { outcome: 'refused', reading };
        if (task.complete === true) return { outcome: 'complete', reading };
        resultIds = task.resultIds;
        const remaining = deadline - Date.now();
        if (remaining <= 0) return { outcome: 'timeout', reading };
        if (heard) continue;
        await new Promise<void>((resolve) => {
          const done = (): void => {
            clearTimeout(timer);
            wake = null;
            resolve();
          };
          const timer = setTimeout(done, Math.min(remaining, this.#recheckMs));
          wake = done;
        });
      }
    } finally {
      this.#active--;
      unsubscribe?.();
      signal.removeEventListener('abort', onAbort);
    }
  }
}

/** `complete` and the result ids of a task answer; `undefined` when it is not a task (a refusal, not JSON). */
function parseTask(reading: TaskReading): { complete: unknown; resultIds: Set<number> } | undefined {
  if (reading.status > 210) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(reading.body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const t = body as { complete?: unknown; results?: unknown };
  const ids = new Set<number>();
  if (Array.isArray(t.results))
    for (const r of t.results) {
      const id = typeof r === 'number' ? r : (r as { id?: unknown } | null)?.id;
      if (typeof id === 'number') ids.add(id);
    }
  return { complete: t.complete, resultIds: ids };
}
