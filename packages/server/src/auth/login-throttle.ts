/**
 * Throttles failed logins per client address (per server instance, in memory). Every failure counts for the
 * window, whatever succeeded in between: a success from the same address does not wipe the count (otherwise one
 * valid account lets an address guess the passwords of all others). Per-account lock-out is kept in the database
 * (`user.failed_login_attempts`), so it holds across instances. docs/security.md describes both.
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
    const list = this.#recent(address, now);
    // Only the newest failures matter for blockedFor; the list stays bounded under a flood.
    this.#failures.set(address, [...list.slice(-(this.maxFailures * 2)), now]);
    if (this.#failures.size > 100_000) {
      const first = this.#failures.keys().next();
      if (!first.done) this.#failures.delete(first.value);
    }
  }
}

/** The account lock-out policy (`password_policy`). */
export interface LockPolicy {
  max_failed_attempts: number;
  inactivation_minutes: number;
}

/** The columns of a user the lock-out reads. */
export interface LoginAttempts {
  failed_login_attempts: number;
  last_login_attempt: string | null;
}

/** Whether the account is locked now (too many failures, the last one within the inactivation period). */
export function accountLocked(user: LoginAttempts, policy: LockPolicy, now = Date.now()): boolean {
  if (user.failed_login_attempts < policy.max_failed_attempts || !user.last_login_attempt) return false;
  return now - Date.parse(`${user.last_login_attempt}Z`) < policy.inactivation_minutes * 60_000;
}

/** The failure counter after one more failure (it restarts at 1 once the lock has passed). */
export const attemptsAfterFailure = (user: LoginAttempts, policy: LockPolicy): number =>
  user.failed_login_attempts >= policy.max_failed_attempts ? 1 : user.failed_login_attempts + 1;
