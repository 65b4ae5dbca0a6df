/**
 * When the node tries its socket again (docs/socket-protocol.md#admission). Two cases:
 * - the server answered `server_busy` with `retry_after_ms`: come back then, plus up to 20% (never earlier: the
 *   server handed out that slot; the jitter keeps nodes given neighbouring slots from arriving as one);
 * - anything else (server down, connection lost): "equal jitter" exponential back-off: attempt k waits between half
 *   and all of min(max, base·2^k), so that nodes that lost the server together do not return together.
 */
export interface BackoffOptions {
  /** @default 1000 */
  readonly baseMs?: number;
  /** @default 30000 */
  readonly maxMs?: number;
  /** A number in [0, 1); tests pass their own. @default Math.random */
  readonly random?: () => number;
}

/** Share of a server's hint added at most as jitter. */
export const HINT_JITTER = 0.2;

export class ReconnectBackoff {
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #random: () => number;
  #attempt = 0;

  constructor(options: BackoffOptions = {}) {
    this.#baseMs = options.baseMs ?? 1_000;
    this.#maxMs = options.maxMs ?? 30_000;
    this.#random = options.random ?? Math.random;
  }

  /** Failed attempts since the last success. */
  get attempts(): number {
    return this.#attempt;
  }

  /**
   * The wait before the next attempt, in ms. `retryAfterMs`: the server's hint (a positive finite number, else
   * ignored); a hint does not lengthen later waits, since the server was there and gave a time.
   */
  next(retryAfterMs?: number): number {
    if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs > 0) {
      const hint = Math.min(retryAfterMs, this.#maxMs * 4);
      return Math.round(hint * (1 + HINT_JITTER * this.#random()));
    }
    const cap = Math.min(this.#maxMs, this.#baseMs * 2 ** Math.min(this.#attempt, 30));
    this.#attempt += 1;
    return Math.round(cap / 2 + (cap / 2) * this.#random());
  }

  /** Connected: the next loss starts from the shortest wait again. */
  reset(): void {
    this.#attempt = 0;
  }
}

/** The server's `retry_after_ms` in a `connect_error`'s data (`{code: 'server_busy', retry_after_ms}`), if any. */
export function retryHint(error: unknown): number | undefined {
  const data = (error as { data?: unknown } | null)?.data;
  if (typeof data !== 'object' || data === null) return undefined;
  const d = data as Record<string, unknown>;
  return d.code === 'server_busy' && typeof d.retry_after_ms === 'number' ? d.retry_after_ms : undefined;
}
