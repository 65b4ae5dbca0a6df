/**
 * Admission of socket handshakes: at most `maxPending` sockets are being identified and joined to their rooms at a
 * time. A handshake beyond that is refused at once with a time to come back (`retry_after_ms`), rather than left to
 * queue until the client's connect timeout: in a reconnect storm (every node returning after a server restart)
 * each refused node is given its own slot, spread at the pace the server has been admitting sockets, and a node
 * that honours the hint (the Federa node does, docs/socket-protocol.md#admission) returns when it can be served.
 */
export interface AdmissionOptions {
  /** Sockets identified at the same time. */
  readonly maxPending: number;
  /** The clock (ms); tests pass their own. */
  readonly now?: () => number;
}

/** The answer to a handshake: go on (then {@link Admission.done} once connected), or come back later. */
export type AdmissionAnswer = { admitted: true } | { admitted: false; retryAfterMs: number };

/** Shortest and longest hint given. */
export const MIN_RETRY_MS = 500;
export const MAX_RETRY_MS = 60_000;
/** Admissions per second assumed before any was measured. */
const INITIAL_RATE = 50;

export class Admission {
  readonly #maxPending: number;
  readonly #now: () => number;
  readonly #pending = new Set<string>();
  /** Admissions completed per second, smoothed; and the count of the second being measured. */
  #rate = INITIAL_RATE;
  #windowStart: number;
  #windowCount = 0;
  /** The latest slot handed out (ms). */
  #nextSlot = 0;
  /** Counters for the logs and the benchmark. */
  readonly stats = { admitted: 0, refused: 0 };

  constructor(options: AdmissionOptions) {
    this.#maxPending = options.maxPending;
    this.#now = options.now ?? Date.now;
    this.#windowStart = this.#now();
  }

  /** Sockets being identified now. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Admissions per second, as measured lately. */
  get rate(): number {
    this.#measure();
    return this.#rate;
  }

  /** Asks to admit the socket `id`. */
  enter(id: string): AdmissionAnswer {
    if (this.#pending.size < this.#maxPending) {
      this.#pending.add(id);
      this.stats.admitted += 1;
      return { admitted: true };
    }
    this.stats.refused += 1;
    const now = this.#now();
    const rate = this.rate;
    // The pending sockets are served first; each refused one gets the next free slot after them.
    const slot = Math.max(now + (this.#pending.size * 1000) / rate, this.#nextSlot) + 1000 / rate;
    this.#nextSlot = slot;
    return {
      admitted: false,
      retryAfterMs: Math.round(Math.min(MAX_RETRY_MS, Math.max(MIN_RETRY_MS, slot - now))),
    };
  }

  /** The socket `id` is connected (or gone): its place is free. Safe to call more than once. */
  done(id: string): void {
    if (!this.#pending.delete(id)) return;
    this.#measure();
    this.#windowCount += 1;
  }

  #measure(): void {
    const now = this.#now();
    const elapsed = now - this.#windowStart;
    if (elapsed < 1000) return;
    const measured = (this.#windowCount * 1000) / elapsed;
    // A quiet second says nothing about the pace under load: only busy seconds move the estimate.
    if (this.#windowCount > 0) this.#rate = Math.max(1, 0.5 * this.#rate + 0.5 * measured);
    this.#windowStart = now;
    this.#windowCount = 0;
  }
}
