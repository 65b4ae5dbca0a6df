/**
 * Following a run's log (docs/run-logs.md): `GET /result/{id}` read until the run has finished, each new piece of
 * its `log` handed out once. The node's final report replaces the live log with the whole container log; what it
 * adds after the part already handed out comes as one more piece.
 */

/** Options of `client.result.logs`. */
export interface LogOptions {
  /**
   * Keep reading until the run has finished; each new piece of the log is yielded as it arrives.
   * @default false: the log as it is now, once
   */
  follow?: boolean;
  /**
   * How often the run is read while it is followed (ms).
   * @default 1000
   */
  intervalMs?: number;
  /** Ends the iteration early (the iterator returns). */
  signal?: AbortSignal;
}

/** What is read of the run each time. */
export interface RunLogView {
  log: string | null;
  finished_at: string | null;
}

/** How many leading characters two texts share. */
export function sharedPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** The pieces of a run's log as they appear; ends once the run has finished (or at once without `follow`). */
export async function* followRunLog(
  read: () => Promise<RunLogView>,
  options: LogOptions = {},
): AsyncGenerator<string> {
  const interval = options.intervalMs ?? 1000;
  let seen = '';
  for (;;) {
    if (options.signal?.aborted) return;
    const run = await read();
    const log = run.log ?? '';
    const from = sharedPrefix(seen, log);
    if (log.length > from) yield log.slice(from);
    seen = log;
    if (!options.follow || run.finished_at !== null) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, interval);
      options.signal?.addEventListener('abort', done, { once: true });
      function done(): void {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', done);
        resolve();
      }
    });
  }
}
