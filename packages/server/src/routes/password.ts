import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../errors.js';
import { hashPassword, passwordPolicyProblem } from '../auth/passwords.js';
import { errorResponses, MessageSchema } from '../serializers/common.js';
import { findUser } from '../repositories/user.js';
import { admitFromAddress } from '../auth/login-throttle.js';
import { endSessions } from '../auth/sessions.js';
import { setPasswordHash } from '../repositories/login.js';
import { checkPassword, refusedCheckText } from '../auth/password-check.js';

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
      // Guessing the current password is throttled like a login: each check counted before it is made, per
      // address, per account and address, and per account (docs/security.md).
      const address = admitFromAddress(ctx.throttle, request.ip, 'failed password checks');
      const user = await findUser(db, caller.id);
      if (!user) throw new ApiError('identity_missing', `Error loading the user ${caller.id}`);
      const outcome = await checkPassword(ctx, request.ip, user, current, user.password);
      if (outcome !== 'passed') {
        request.log.info(
          { event: 'password.change_refused', user_id: user.id, refused: outcome },
          'wrong password',
        );
        throw new ApiError(
          'invalid_credentials',
          refusedCheckText(outcome, policy, 'Your current password is not correct.'),
        );
      }
      address.succeeded();
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
