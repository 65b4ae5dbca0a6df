/**
 * Throttles failed logins per client address (per server instance, in memory). Per-account lock-out is kept in
 * the database (`user.failed_login_attempts`), so it holds across instances.
 */
export class LoginThrottle {
  readonly #failures = new Map<string, number[]>();
  constructor(
    private readonly maxFailures: number,
    private readonly windowMs: number,
  ) {}

  #recent(address: string, now: number): number[] {
    const list = (this.#failures.get(address) ?? []).filter((t) => now - t < this.windowMs);
    if (list.length) this.#failures.set(address, list);
    else this.#failures.delete(address);
    return list;
  }

  /** Seconds until this address may try again, or 0 when it may now. */
  blockedFor(address: string, now = Date.now()): number {
    const list = this.#recent(address, now);
    if (list.length < this.maxFailures) return 0;
    const oldest = list[list.length - this.maxFailures] ?? now;
    return Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
  }

  fail(address: string, now = Date.now()): void {
    this.#failures.set(address, [...this.#recent(address, now), now]);
  }

  succeed(address: string): void {
    this.#failures.delete(address);
  }
}
