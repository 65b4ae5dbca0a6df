import { ApiError } from '../errors.js';

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

  /**
   * Admits one credential check from `address` and counts it at once as a failure, or refuses it: `wait` is the
   * seconds to wait (0: admitted). Counted before the check and not after: the checks take long (a bcrypt
   * comparison) and run side by side, so a burst counted afterwards was let in whole, each request finding the
   * address as it was before the burst. `succeeded()` takes the count back once the check has passed.
   */
  admit(address: string, now = Date.now()): { wait: number; succeeded: () => void } {
    const wait = this.blockedFor(address, now);
    if (wait > 0) return { wait, succeeded: () => {} };
    this.#fail(address, now);
    return {
      wait: 0,
      succeeded: () => {
        const list = this.#failures.get(address);
        const at = list?.lastIndexOf(now) ?? -1;
        if (list && at >= 0) list.splice(at, 1);
      },
    };
  }

  #fail(address: string, now: number): void {
    const list = this.#recent(address, now);
    // Only the newest failures matter for blockedFor; the list stays bounded under a flood.
    this.#failures.set(address, [...list.slice(-(this.maxFailures * 2)), now]);
    if (this.#failures.size > 100_000) {
      const first = this.#failures.keys().next();
      if (!first.done) this.#failures.delete(first.value);
    }
  }
}

/**
 * Admits a credential check from the request's address (counted as a failure until it succeeds), or refuses it
 * with `address_throttled`; `what` names the checks in the refusal ("failed logins").
 */
export function admitFromAddress(
  throttle: LoginThrottle,
  address: string,
  what: string,
): { succeeded: () => void } {
  const admitted = throttle.admit(address);
  if (admitted.wait > 0)
    throw new ApiError(
      'address_throttled',
      `Too many ${what} from your address. Try again in ${minutesText(admitted.wait)}.`,
    );
  return admitted;
}

/** A wait as a person reads it: seconds below a minute and a half, else whole minutes. */
const minutesText = (seconds: number): string =>
  seconds >= 90 ? `${Math.ceil(seconds / 60)} minutes` : `${Math.ceil(seconds)} seconds`;
