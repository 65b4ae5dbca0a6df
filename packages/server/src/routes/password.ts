import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../errors.js';
import { hashPassword, passwordPolicyProblem, verifyPassword } from '../auth/passwords.js';
import { errorResponses, MessageSchema } from '../serializers/common.js';
import { findUser } from '../repositories/user.js';
import { accountLocked, attemptsAfterFailure } from '../auth/login-throttle.js';
import { endSessions } from '../auth/sessions.js';
import { recordFailedLogin, setPasswordHash } from '../repositories/login.js';

/** `PATCH /password/change` (docs/api.md#account-recovery-and-passwords): a user changes their own password. */
export const passwordRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;

  app.patch(
    '/password/change',
    {
      schema: {
        tags: ['password'],
        summary: 'Change your own password',
        body: Type.Object({
          current_password: Type.String({ minLength: 1 }),
          new_password: Type.String({ minLength: 1 }),
        }),
        response: { 200: MessageSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = request.caller;
      if (!caller || caller.kind !== 'user') throw new ApiError('wrong_caller', 'Only users have a password');
      const { current_password: current, new_password: next } = request.body;
      const db = ctx.dbh.db;
      const policy = ctx.config.password_policy;
      // Guessing the current password is throttled like a login (per address and per account).
      const wait = ctx.throttle.blockedFor(request.ip);
      if (wait > 0)
        throw new ApiError(
          'address_throttled',
          `Too many failed password checks from your address. Try again in ${Math.ceil(wait / 60)} minutes.`,
        );
      const user = await findUser(db, caller.id);
      if (!user) throw new ApiError('identity_missing', `Error loading the user ${caller.id}`);
      const matches = await verifyPassword(current, user.password);
      const locked = accountLocked(user, policy);
      if (locked || !matches) {
        ctx.throttle.fail(request.ip);
        if (!locked) await recordFailedLogin(db, user.id, attemptsAfterFailure(user, policy));
        request.log.info({ event: 'password.change_refused', user_id: user.id, locked }, 'wrong password');
        throw new ApiError(
          'invalid_credentials',
          `Your current password is not correct. After ${policy.max_failed_attempts} failures the account is locked for ${policy.inactivation_minutes} minutes.`,
        );
      }
      if (next === current)
        throw new ApiError(
          'not_allowed_input',
          'The new password is the same as the current one; choose another.',
        );
      const problem = passwordPolicyProblem(next);
      if (problem) throw new ApiError('password_policy', problem);
      await setPasswordHash(db, user.id, await hashPassword(next, ctx.config.bcrypt_rounds));
      // Every session opened before the change ends, this one too (docs/security.md): log in again.
      await endSessions(ctx, 'user', user.id, 'password_changed');
      request.log.info({ event: 'password.changed', user_id: user.id }, 'password changed');
      return { msg: 'Your password has been changed. Every session has ended: log in again.' };
    },
  );
};
