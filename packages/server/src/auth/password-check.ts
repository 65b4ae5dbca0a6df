import type { AppContext } from '../context.js';
import type { UserRow } from '../db/schema.js';
import { countPasswordCheck, recordPasswordCheckPassed } from '../repositories/login-failures.js';
import { verifyPassword } from './passwords.js';

/** What a password check found: the right password, a wrong one, or a check refused before it was believed. */
export type PasswordCheck = 'passed' | 'wrong' | 'locked' | 'slowed' | 'no_such_user';

/**
 * Checks a password given for `user` from address `ip`, counting the check before it is made
 * (repositories/login-failures.ts). Always one bcrypt comparison, also for a missing user (against `absentHash`)
 * and a refused check, so that the time taken tells none of them apart. A check that passed clears the counts.
 */
export async function checkPassword(
  ctx: AppContext,
  ip: string,
  user: UserRow | undefined,
  given: string,
  absentHash: string,
): Promise<PasswordCheck> {
  const policy = ctx.config.password_policy;
  const admission = user ? await countPasswordCheck(ctx.dbh.db, user.id, ip, policy) : undefined;
  const matches = await verifyPassword(given, user?.password ?? absentHash);
  if (!user) return 'no_such_user';
  if (admission && !admission.admitted) return admission.reason;
  if (!matches) return 'wrong';
  await recordPasswordCheckPassed(ctx.dbh.db, user.id, ip, policy);
  return 'passed';
}

/** What a user who gave a password for their own account is told when the check was refused or failed. */
export function refusedCheckText(
  outcome: Exclude<PasswordCheck, 'passed'>,
  policy: { max_failed_attempts: number; inactivation_minutes: number; account_slow_seconds: number },
  wrong: string,
): string {
  if (outcome === 'locked')
    return `Too many wrong passwords from your address: the account is locked for your address for up to ${policy.inactivation_minutes} minutes. Try again later, from another address, or reset the password.`;
  if (outcome === 'slowed')
    return `This account has seen many wrong passwords from many addresses: from an address it was not used from before, it takes one password check per ${policy.account_slow_seconds} seconds. Try again shortly, or reset the password.`;
  return `${wrong} After ${policy.max_failed_attempts} wrong passwords from one address the account is locked for that address for ${policy.inactivation_minutes} minutes.`;
}
