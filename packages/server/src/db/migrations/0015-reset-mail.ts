import type { Kysely } from 'kysely';

/**
 * `user.reset_mail_at`: when the last password reset mail went to the account. `POST /recover/lost` sends one mail
 * per account per `password_policy.reset_mail_interval_minutes` (repositories/login.ts `claimResetMail`); before,
 * anyone could make the server send as many as they asked for, to any account's mailbox (docs/security.md).
 */
export const resetMail = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('user').addColumn('reset_mail_at', 'text').execute();
  },
};
