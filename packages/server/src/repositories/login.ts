import type { Kysely } from 'kysely';
import type { Database, UserRow } from '../db/schema.js';
import { formatStored, nowStored } from '../db/stored-time.js';
import { clearLoginFailures } from './login-failures.js';

/** Data access for logging in and checking passwords: the account's counters, the node's API key. */

export async function findUserByUsername(
  db: Kysely<Database>,
  username: string,
): Promise<UserRow | undefined> {
  return db.selectFrom('user').selectAll().where('username', '=', username).executeTakeFirst();
}

/** The first account (lowest id) with this username, or else with this e-mail address. */
export async function findUserByUsernameOrEmail(
  db: Kysely<Database>,
  by: { username?: string | undefined; email?: string | undefined },
): Promise<UserRow | undefined> {
  const q = db.selectFrom('user').selectAll();
  return (by.username ? q.where('username', '=', by.username) : q.where('email', '=', by.email ?? ''))
    .orderBy('id')
    .executeTakeFirst();
}

/**
 * Whether a password reset mail may go to the account now: when none went in the last `intervalMinutes`; the
 * send is then recorded in the same statement, so requests made side by side (or on several instances) send one.
 */
export async function claimResetMail(
  db: Kysely<Database>,
  userId: number,
  intervalMinutes: number,
  now = new Date(),
): Promise<boolean> {
  const since = formatStored(new Date(now.getTime() - intervalMinutes * 60_000));
  const row = await db
    .updateTable('user')
    .set({ reset_mail_at: formatStored(now) })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('reset_mail_at', 'is', null), eb('reset_mail_at', '<=', since)]))
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** A successful login (after `recordPasswordCheckPassed`): the user was seen now. */
export async function recordLogin(db: Kysely<Database>, userId: number): Promise<void> {
  await db
    .updateTable('user')
    .set({ last_login_attempt: nowStored(), last_seen: nowStored() })
    .where('id', '=', userId)
    .execute();
}

/** Stores a new password hash; every failure count of the account starts afresh, so every lock ends. */
export async function setPasswordHash(db: Kysely<Database>, userId: number, hash: string): Promise<void> {
  await db
    .updateTable('user')
    .set({ password: hash, failed_login_attempts: 0, last_login_attempt: null })
    .where('id', '=', userId)
    .execute();
  await clearLoginFailures(db, userId);
}

/** The id of the node with this API key hash, if any. */
export async function nodeIdByApiKeyHash(db: Kysely<Database>, hash: string): Promise<number | undefined> {
  const row = await db.selectFrom('node').select('id').where('api_key_hash', '=', hash).executeTakeFirst();
  return row?.id;
}

/** A node logged in: it was seen now. */
export async function recordNodeLogin(db: Kysely<Database>, nodeId: number): Promise<void> {
  await db.updateTable('node').set({ last_seen: nowStored() }).where('id', '=', nodeId).execute();
}

/** Whether a reset token (by its `jti`) was already used. */
export async function resetTokenUsed(db: Kysely<Database>, jti: string): Promise<boolean> {
  return (
    (await db.selectFrom('used_token').select('jti').where('jti', '=', jti).executeTakeFirst()) !== undefined
  );
}

/**
 * Resets a password with a reset token, in one transaction: the token is marked used (its primary key makes a
 * second, concurrent use fail) and the new hash stored.
 */
export async function resetPasswordWithToken(
  db: Kysely<Database>,
  userId: number,
  jti: string,
  hash: string,
): Promise<void> {
  const now = nowStored();
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('used_token').values({ jti, used_at: now }).execute();
    await setPasswordHash(trx, userId, hash);
  });
}

/** Forgets the used reset tokens used before `horizon` (stored form): expired ones cannot be replayed anyway. */
export async function forgetUsedResetTokens(db: Kysely<Database>, horizon: string): Promise<void> {
  await db.deleteFrom('used_token').where('used_at', '<', horizon).execute();
}
