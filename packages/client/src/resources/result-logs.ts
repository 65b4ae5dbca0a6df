/**
 * Following a run's log (docs/run-logs.md): `GET /result/{id}` read until the run has finished, each new piece of
 * its `log` handed out once. With a socket, a read follows the server's `run_log_update` (or a status event) for the
 * run; without one (none could be opened, or it closed), the run is read every `intervalMs`. The node's final
 * report replaces the live log with the whole container log; what it adds after the part already handed out comes
 * as one more piece.
 */
import { safetyIntervalMs, type EventSubscription, type TaskSocketEvent } from '../wait.js';

/** Options of `client.result.logs`. */
export interface LogOptions {
  /**
   * Keep reading until the run has finished; each new piece of the log is yielded as it arrives.
   * @default false: the log as it is now, once
   */
  follow?: boolean;
  /**
   * How often the run is read while it is followed without a socket (ms). With a socket the run is read when the
   * server says its log grew or its status changed, and every `max(5 × intervalMs, 5000)` ms in case an event was
   * missed.
   * @default 1000
   */
  intervalMs?: number;
  /**
   * Follow on the server's socket events. `false` only polls.
   * @default true
   */
  useSocket?: boolean;
  /** Ends the iteration early (the iterator returns). */
  signal?: AbortSignal;
}

/** What is read of the run each time. */
export interface RunLogView {
  log: string | null;
  finished_at: string | null;
}

/** The socket events of the followed run. */
export interface RunLogEvents {
  resultId: number;
  subscribe(onEvent: (event: TaskSocketEvent) => void): Promise<EventSubscription | null>;
}

/** How many leading characters two texts share. */
export function sharedPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Sleeps until poked, the time is up or the signal aborts; a poke while awake is kept for the next sleep. */
class Waker {
  #pending = false;
  #wake: (() => void) | null = null;

  poke(): void {
    this.#pending = true;
    this.#wake?.();
  }

  /** Forgets earlier pokes: called right before a read, which sees everything they announced. */
  reset(): void {
    this.#pending = false;
  }

  sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (this.#pending) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.#wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      this.#wake = done;
    });
  }
}

/**
 * The pieces of a run's log as they appear; ends once the run has finished (or at once without `follow`).
 * `open` turns the stored log into the text to show (a sealed log of an encrypted collaboration is decrypted).
 */
export async function* followRunLog(
  read: () => Promise<RunLogView>,
  options: LogOptions = {},
  events: RunLogEvents | null = null,
  open: (log: string) => string = (log) => log,
): AsyncGenerator<string> {
  const interval = options.intervalMs ?? 1000;
  const waker = new Waker();
  /** Characters of the stored log at the last read: a `run_log_update` up to there announces nothing new. */
  let storedLength = -1;
  const subscription =
    options.follow && options.useSocket !== false && events
      ? await events.subscribe((event) => {
          if (event.kind === 'disconnect') waker.poke();
          else if (event.kind === 'status') {
            if (event.resultId === null || event.resultId === events.resultId) waker.poke();
          } else if (event.update.result_id === events.resultId && event.update.offset !== storedLength)
            waker.poke();
        })
      : null;
  let seen = '';
  try {
    for (;;) {
      if (options.signal?.aborted) return;
      waker.reset();
      const run = await read();
      const stored = run.log ?? '';
      storedLength = stored.length;
      const log = open(stored);
      const from = sharedPrefix(seen, log);
      if (log.length > from) yield log.slice(from);
      seen = log;
      if (!options.follow || run.finished_at !== null) return;
      await waker.sleep(subscription?.connected ? safetyIntervalMs(interval) : interval, options.signal);
    }
  } finally {
    subscription?.close();
  }
}
