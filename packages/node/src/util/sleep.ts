import { NodeStoppedError } from '../errors.js';

/** Waits `ms`, or rejects with NodeStoppedError as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new NodeStoppedError());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new NodeStoppedError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Exponential backoff: 1 s, 2 s, 4 s … capped at `maxMs`. */
export const backoffMs = (attempt: number, maxMs = 30_000, baseMs = 1_000): number =>
  Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 16));
