/**
 * Changing one's own e-mail address needs the current password (docs/security.md, "Accounts of others"): a stolen
 * session must not be enough to redirect the password recovery. Wrong guesses count like failed logins.
 */
import type { FastifyRequest } from 'fastify';

import type { AppContext } from '../context.js';
import type { UserRow } from '../db/schema.js';
import { ApiError } from '../errors.js';
import { admitFromAddress } from './login-throttle.js';
import { checkPassword, refusedCheckText } from './password-check.js';

/** Returns when `given` is the user's password; otherwise refuses (and counts the failure). */
export async function requireCurrentPassword(
  ctx: AppContext,
  request: FastifyRequest,
  user: UserRow,
  given: string | null | undefined,
): Promise<void> {
  if (!given)
    throw new ApiError(
      'current_password_required',
      'Changing your own e-mail address needs your current password: send it as `current_password`.',
    );
  // Each check counted before it is made, per address (login-throttle.ts `admit`), per account and address, and
  // per account (password-check.ts).
  const address = admitFromAddress(ctx.throttle, request.ip, 'wrong passwords');
  const outcome = await checkPassword(ctx, request.ip, user, given, user.password);
  if (outcome === 'passed') {
    address.succeeded();
    return;
  }
  if (outcome === 'locked' || outcome === 'slowed')
    throw new ApiError('account_locked', refusedCheckText(outcome, ctx.config.password_policy, ''));
  request.log.info({ event: 'user.email_password_wrong', user_id: user.id }, 'wrong password');
  throw new ApiError(
    'current_password_wrong',
    'The `current_password` you gave is not your current password; your e-mail address was not changed.',
  );
}
