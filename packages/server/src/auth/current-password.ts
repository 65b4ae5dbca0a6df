/**
 * Changing one's own e-mail address needs the current password (docs/security.md, "Accounts of others"): a stolen
 * session must not be enough to redirect the password recovery. Wrong guesses count like failed logins, per
 * address and per account.
 */
import type { FastifyRequest } from 'fastify';

import type { AppContext } from '../context.js';
import type { User } from '../db/schema.js';
import { ApiError } from '../errors.js';
import { countPasswordCheck, recordPasswordCheckPassed } from '../repositories/login.js';
import { admitFromAddress } from './login-throttle.js';
import { verifyPassword } from './passwords.js';

/** Returns when `given` is the user's password; otherwise refuses (and counts the failure). */
export async function requireCurrentPassword(
  ctx: AppContext,
  request: FastifyRequest,
  user: User,
  given: string | null | undefined,
): Promise<void> {
  if (!given)
    throw new ApiError(
      'current_password_required',
      'Changing your own e-mail address needs your current password: send it as `current_password`.',
    );
  // Each check counted before it is made, per address and per account (login-throttle.ts `admit`).
  const address = admitFromAddress(ctx.throttle, request.ip, 'wrong passwords');
  const policy = ctx.config.password_policy;
  const attempts = await countPasswordCheck(ctx.dbh.db, user.id, policy);
  if (attempts === null)
    throw new ApiError(
      'account_locked',
      `This account is locked after ${policy.max_failed_attempts} wrong passwords. Try again later, or reset the password.`,
    );
  if (await verifyPassword(given, user.password)) {
    address.succeeded();
    await recordPasswordCheckPassed(ctx.dbh.db, user.id);
    return;
  }
  request.log.info({ event: 'user.email_password_wrong', user_id: user.id, attempts }, 'wrong password');
  throw new ApiError(
    'current_password_wrong',
    'The `current_password` you gave is not your current password; your e-mail address was not changed.',
  );
}
