/**
 * Progress output for long work (building or pulling images, waiting for an instance to come online).
 * One line per step on stderr: `… <label>` when it starts, updates when something changes (on a terminal in
 * place; elsewhere, e.g. a log file or CI, as new lines at most every {@link QUIET_INTERVAL_MS}) and `✓ <label> (<seconds>s)`, `! <label>` (done, with a warning: work goes on) or
 * `✗ <label>` (failed) at the end.
 */
export interface ProgressSink {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface Step {
  /** A new detail, e.g. `layer 3/7 downloading 45%`. */
  update(detail: string): void;
  succeed(detail?: string): void;
  fail(detail?: string): void;
  /** Ends the step with a warning: something was not as hoped, and the work goes on (`! <label>: <detail>`). */
  warn(detail?: string): void;
  /** Milliseconds since the step started. */
  elapsedMs(): number;
}

/**
 * The least time between two update lines when not on a terminal: a log read later needs a sign of life, not a line
 * a second (a pull of a few minutes would otherwise fill a screen).
 */
export const QUIET_INTERVAL_MS = 10_000;

export class Progress {
  readonly #sink: ProgressSink;
  readonly #quiet: boolean;

  constructor(sink: ProgressSink = process.stderr, options: { quiet?: boolean } = {}) {
    this.#sink = sink;
    this.#quiet = options.quiet ?? false;
  }

  info(text: string): void {
    if (!this.#quiet) this.#sink.write(`${text}\n`);
  }

  warn(text: string): void {
    this.#sink.write(`warning: ${text}\n`);
  }

  step(label: string): Step {
    const started = Date.now();
    const tty = this.#sink.isTTY === true;
    let last = '';
    let lastAt = started;
    let open = true;
    const seconds = (): string => `${((Date.now() - started) / 1000).toFixed(1)}s`;
    const line = (text: string, final: boolean): void => {
      if (this.#quiet && !final) return;
      if (tty) this.#sink.write(`\r\x1b[2K${text}${final ? '\n' : ''}`);
      else this.#sink.write(`${text}\n`);
    };
    line(`… ${label}`, !tty);
    return {
      update: (detail) => {
        if (!open || detail === last) return;
        const now = Date.now();
        if (!tty && now - lastAt < QUIET_INTERVAL_MS) return;
        last = detail;
        lastAt = now;
        line(`… ${label}: ${detail} (${seconds()})`, !tty);
      },
      succeed: (detail) => {
        if (!open) return;
        open = false;
        line(`✓ ${label}${detail ? `: ${detail}` : ''} (${seconds()})`, true);
      },
      fail: (detail) => {
        if (!open) return;
        open = false;
        line(`✗ ${label}${detail ? `: ${detail}` : ''} (${seconds()})`, true);
      },
      warn: (detail) => {
        if (!open) return;
        open = false;
        line(`! ${label}${detail ? `: ${detail}` : ''} (${seconds()})`, true);
      },
      elapsedMs: () => Date.now() - started,
    };
  }
}
