import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../errors.js';
import { hashPassword, passwordPolicyProblem, verifyPassword } from '../auth/passwords.js';
import { errorResponses, MessageSchema } from '../serializers/common.js';
import { findUser } from '../repositories/user.js';

/** `PATCH /password/change` (api.md §4.2): a user changes their own password. */
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
      const user = await findUser(db, caller.id);
      if (!user) throw new ApiError('identity_missing', `Error loading the user ${caller.id}`);
      if (!(await verifyPassword(current, user.password)))
        throw new ApiError('invalid_credentials', 'Your current password is not correct.');
      if (next === current)
        throw new ApiError(
          'not_allowed_input',
          'The new password is the same as the current one; choose another.',
        );
      const problem = passwordPolicyProblem(next);
      if (problem) throw new ApiError('password_policy', problem);
      await db
        .updateTable('user')
        .set({ password: await hashPassword(next, ctx.config.bcrypt_rounds) })
        .where('id', '=', user.id)
        .execute();
      request.log.info({ event: 'password.changed', user_id: user.id }, 'password changed');
      return { msg: 'Your password has been changed.' };
    },
  );
};
