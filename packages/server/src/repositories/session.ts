import type { Kysely } from 'kysely';
import type { Database, SessionRow } from '../db/schema.js';

/** Data access for sessions (docs/security.md): one per login of a user or node. */

export async function findSession(db: Kysely<Database>, id: string): Promise<SessionRow | undefined> {
  return db.selectFrom('session').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Stores a new session. */
export async function insertSession(db: Kysely<Database>, session: SessionRow): Promise<void> {
  await db.insertInto('session').values(session).execute();
}

/** Deletes the sessions that expired or ended before `horizon` (stored form). */
export async function deleteSessionsBefore(db: Kysely<Database>, horizon: string): Promise<void> {
  await db
    .deleteFrom('session')
    .where((eb) => eb.or([eb('expires_at', '<', horizon), eb('ended_at', '<', horizon)]))
    .execute();
}

/**
 * Spends the session's current refresh token `presented`: `next` becomes the current one and `rotated` is
 * stored. Whether it was spent here (false when the session ended or another request spent it first).
 */
export async function spendRefreshJti(
  db: Kysely<Database>,
  sessionId: string,
  presented: string,
  next: string,
  rotated: number,
): Promise<boolean> {
  const done = await db
    .updateTable('session')
    .set({ refresh_jti: next, rotated })
    .where('id', '=', sessionId)
    .where('refresh_jti', '=', presented)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

/**
 * Spends the login's refresh token of a session that never rotated (`legacy_refresh_reuse`): `next` becomes the
 * current one. Whether it was spent here.
 */
export async function spendLoginRefreshJti(
  db: Kysely<Database>,
  sessionId: string,
  next: string,
): Promise<boolean> {
  const done = await db
    .updateTable('session')
    .set({ refresh_jti: next })
    .where('id', '=', sessionId)
    .where('rotated', '=', 0)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

/** Ends one session now (stored form `endedAt`) for `reason`, unless it already ended. */
export async function endSessionRow(
  db: Kysely<Database>,
  sessionId: string,
  endedAt: string,
  reason: string,
): Promise<void> {
  await db
    .updateTable('session')
    .set({ ended_at: endedAt, end_reason: reason })
    .where('id', '=', sessionId)
    .where('ended_at', 'is', null)
    .execute();
}

/** Ends every open session of a user or node; how many ended. */
export async function endOpenSessions(
  db: Kysely<Database>,
  kind: 'user' | 'node',
  subjectId: number,
  endedAt: string,
  reason: string,
): Promise<number> {
  const done = await db
    .updateTable('session')
    .set({ ended_at: endedAt, end_reason: reason })
    .where('kind', '=', kind)
    .where('subject_id', '=', subjectId)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return Number(done.numUpdatedRows);
}
