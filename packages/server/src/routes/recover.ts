import { endSessions } from '../auth/sessions.js';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError, badRequest } from '../errors.js';
import { hashPassword, passwordPolicyProblem } from '../auth/passwords.js';
import { formatStored } from '../http/datetime.js';
import { findUser } from '../repositories/user.js';
import {
  claimResetMail,
  findUserByUsernameOrEmail,
  forgetUsedResetTokens,
  resetPasswordWithToken,
  resetTokenUsed,
} from '../repositories/login.js';
import { ErrorSchema, errorResponses, MessageSchema } from '../serializers/common.js';
import type { AppContext } from '../context.js';
import type { TokenClaims } from '../auth/tokens.js';

/** The one answer of `/recover/lost`, whether or not the account exists (no user enumeration). */
export const RECOVERY_SENT_MESSAGE =
  'If an account with that username or e-mail address exists, a message with a password reset token has been sent to its e-mail address.';

export const RECOVERY_NOT_CONFIGURED_MESSAGE = 'Password recovery by e-mail is not configured on this server';

const minutes = (seconds: number): number => Math.max(1, Math.round(seconds / 60));

function resetMail(
  ctx: AppContext,
  user: { username: string; firstname: string | null },
  token: string,
): { subject: string; text: string } {
  const support = ctx.config.support_email ?? ctx.config.smtp?.username;
  const lines = [
    `Hello ${user.firstname || user.username},`,
    '',
    `Someone (hopefully you) asked to reset the password of the account '${user.username}'.`,
    `This reset token is valid for ${minutes(ctx.tokens.lifetimes.resetSeconds)} minutes and works once:`,
    '',
    token,
    '',
    `To choose a new password, send it with the token to POST ${ctx.config.api_path}/recover/reset`,
    '(body: {"reset_token": "<token>", "password": "<new password>"}), or use the reset function of your client.',
    '',
    'If you did not ask for this, you can ignore this message: your password stays as it is.',
  ];
  if (support) lines.push('', `Questions? Contact ${support}.`);
  return { subject: 'Password reset for your Federa account', text: lines.join('\n') };
}

/**
 * The reset token a recovery mail carries for this user: bound to the account's password and e-mail address as
 * they are now (docs/security.md). Undefined when the user does not exist.
 */
export async function resetTokenFor(ctx: AppContext, userId: number): Promise<string | undefined> {
  const user = await findUser(ctx.dbh.db, userId);
  if (!user) return undefined;
  return ctx.tokens.reset(userId, undefined, ctx.tokens.accountFingerprint(user.password, user.email));
}

/** A reset token's claims, or a 400 (undecodable or not a reset token) / 401 (expired). */
async function verifyResetToken(
  ctx: AppContext,
  token: string,
): Promise<{ userId: number; jti: string; exp: number; fingerprint: string | undefined }> {
  let claims: TokenClaims;
  try {
    claims = await ctx.tokens.verify(token);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'token_expired') throw error;
    throw badRequest('Invalid reset token: it could not be decoded.');
  }
  const sub = claims.sub as { id?: unknown };
  const id =
    typeof sub === 'object' && sub !== null && typeof sub.id === 'string' && /^\d+$/.test(sub.id)
      ? Number(sub.id)
      : null;
  if (claims.client_type !== 'reset' || id === null || typeof claims.jti !== 'string') {
    throw badRequest('Invalid reset token: this is not a password reset token.');
  }
  return {
    userId: id,
    jti: claims.jti,
    exp: claims.exp ?? 0,
    fingerprint: typeof claims.fp === 'string' ? claims.fp : undefined,
  };
}

/** Routes of `/recover` (docs/api.md#account-recovery-and-passwords): password recovery by e-mail. `POST /recover/node` is in node.ts. */
export const recoverRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;

  app.post(
    '/recover/lost',
    {
      schema: {
        tags: ['recover'],
        summary: 'Ask for a password reset token by e-mail (username wins over email when both are given)',
        security: [],
        body: Type.Object({
          username: Type.Optional(Type.String({ maxLength: 256 })),
          email: Type.Optional(Type.String({ maxLength: 256 })),
        }),
        response: { 200: MessageSchema, ...errorResponses, 501: ErrorSchema },
      },
    },
    async (request) => {
      const { username, email } = request.body;
      if (!username && !email)
        throw new ApiError('validation_failed', "Give a 'username' or an 'email'.", {
          extra: { message: { username: 'username or email is required' } },
        });
      const mailer = ctx.mailer;
      if (!mailer) throw new ApiError('not_configured', RECOVERY_NOT_CONFIGURED_MESSAGE);
      const db = ctx.dbh.db;
      const user = await findUserByUsernameOrEmail(db, { username, email });
      const interval = ctx.config.password_policy.reset_mail_interval_minutes;
      if (user && !(await claimResetMail(db, user.id, interval))) {
        // The same answer: a caller learns neither that the account exists nor that a mail went out recently.
        request.log.info(
          { event: 'recover.mail_held_back', user_id: user.id, interval_minutes: interval },
          'a password reset mail went to this account less than the interval ago: none sent',
        );
      } else if (user) {
        const token = await ctx.tokens.reset(
          user.id,
          undefined,
          ctx.tokens.accountFingerprint(user.password, user.email),
        ); // as resetTokenFor, without reading the user again
        const mail = resetMail(ctx, user, token);
        // Sent in the background: the answer must not reveal (by its timing) whether the account exists.
        mailer
          .send({ to: user.email, ...mail })
          .then(() =>
            request.log.info({ event: 'recover.mail_sent', user_id: user.id }, 'password reset mail sent'),
          )
          .catch((error: unknown) =>
            request.log.error(
              { event: 'recover.mail_failed', user_id: user.id, err: error, mailer: mailer.describe() },
              'password reset mail could not be sent',
            ),
          );
      } else {
        request.log.info({ event: 'recover.unknown_account' }, 'password reset asked for an unknown account');
      }
      return { msg: RECOVERY_SENT_MESSAGE };
    },
  );

  app.post(
    '/recover/reset',
    {
      schema: {
        tags: ['recover'],
        summary: 'Set a new password with a reset token from the recovery e-mail',
        security: [],
        body: Type.Object({
          reset_token: Type.String({ minLength: 1, maxLength: 4096 }),
          password: Type.String({ minLength: 1 }),
        }),
        response: { 200: MessageSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { reset_token: token, password } = request.body;
      const { userId, jti, fingerprint } = await verifyResetToken(ctx, token);
      const db = ctx.dbh.db;
      const used = (): Promise<boolean> => resetTokenUsed(db, jti);
      if (await used()) throw badRequest('This reset token was already used. Ask for a new one.');
      const user = await findUser(db, userId);
      if (!user) throw badRequest('Invalid reset token: the account no longer exists.');
      // A token sent before the password or the e-mail address changed no longer works (docs/security.md).
      if (fingerprint !== ctx.tokens.accountFingerprint(user.password, user.email))
        throw badRequest(
          "This reset token no longer works: the account's password or e-mail address changed after it was sent. Ask for a new one.",
        );
      const problem = passwordPolicyProblem(password);
      if (problem) throw new ApiError('password_policy', problem);
      const hash = await hashPassword(password, ctx.config.bcrypt_rounds);
      try {
        await resetPasswordWithToken(db, userId, jti, hash);
      } catch (error) {
        if (await used()) throw badRequest('This reset token was already used. Ask for a new one.');
        throw error;
      }
      await endSessions(ctx, 'user', userId, 'password_reset');
      // Tokens that have expired cannot be replayed anyway: forget them.
      const horizon = formatStored(new Date(Date.now() - (ctx.tokens.lifetimes.resetSeconds + 3600) * 1000));
      await forgetUsedResetTokens(db, horizon);
      request.log.info(
        { event: 'recover.password_reset', user_id: userId },
        'password reset with a reset token',
      );
      return { msg: 'The password has been reset. You can log in with the new password.' };
    },
  );
};
