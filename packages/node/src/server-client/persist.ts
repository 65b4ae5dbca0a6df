/**
 * Calls the server until it gives an answer that is final (docs/reliability.md). The REST client already retries a
 * request that never reached the server; this retries a 5xx or 429 answer too: a server whose database is down
 * answers 503, which says nothing about the run. Any other refusal is final and thrown.
 */
import type { Logger } from 'pino';

import { ServerRequestError } from '../errors.js';
import { backoffMs, sleep } from '../util/sleep.js';

/** Whether an error means "try again later" rather than "no". */
export const isTransient = (error: unknown): boolean =>
  error instanceof ServerRequestError && (error.status >= 500 || error.status === 429);

export interface PersistOptions {
  readonly signal: AbortSignal;
  readonly log: Logger;
  /** What is being tried, for the log line (`report`, `status`, `key`, …). */
  readonly what: string;
  /**
   * Longest wait between two tries, in milliseconds.
   * @default 15000
   */
  readonly maxBackoffMs?: number;
}

export async function persist<T>(fn: () => Promise<T>, o: PersistOptions): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isTransient(error) || o.signal.aborted) throw error;
      const wait = backoffMs(attempt, o.maxBackoffMs ?? 15_000, 500);
      o.log.warn(
        { event: 'server.retry', what: o.what, err: (error as Error).message, attempt, retry_in_ms: wait },
        `the server answered ${(error as ServerRequestError).status}; trying again`,
      );
      await sleep(wait, o.signal);
    }
  }
}
