import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * What the result store holds, as the database counts it (`result.held_bytes`, docs/large-results.md): summed for
 * the quotas, written when an upload is kept or removed.
 */

/** Bytes held for the runs of the node of `organizationId` in `collaborationId`, and in total. */
export async function heldBytes(
  db: Kysely<Database>,
  organizationId: number,
  collaborationId: number,
): Promise<{ node: number; total: number }> {
  const total = await db
    .selectFrom('result')
    .select((eb) => eb.fn.sum<number | string | null>('held_bytes').as('bytes'))
    .where('held_bytes', 'is not', null)
    .executeTakeFirst();
  const node = await db
    .selectFrom('result')
    .innerJoin('task', 'task.id', 'result.task_id')
    .select((eb) => eb.fn.sum<number | string | null>('result.held_bytes').as('bytes'))
    .where('result.held_bytes', 'is not', null)
    .where('result.organization_id', '=', organizationId)
    .where('task.collaboration_id', '=', collaborationId)
    .executeTakeFirst();
  return { node: Number(node?.bytes ?? 0), total: Number(total?.bytes ?? 0) };
}

/** Records that the store holds `bytes` for run `resultId` (null: nothing). */
export async function setHeldBytes(
  db: Kysely<Database>,
  resultId: number,
  bytes: number | null,
): Promise<void> {
  await db.updateTable('result').set({ held_bytes: bytes }).where('id', '=', resultId).execute();
}

/** Records, for the runs `ids` whose unnamed uploads were removed, that the store holds their named output only. */
export async function heldNamedOnly(db: Kysely<Database>, ids: readonly number[]): Promise<void> {
  for (let at = 0; at < ids.length; at += 500)
    await db
      .updateTable('result')
      .set({ held_bytes: sql`case when result_sha256 is null then null else result_size end` })
      .where('id', 'in', ids.slice(at, at + 500))
      .execute();
}

/** Bytes the store holds for run `resultId` (0 when none). */
export async function heldBytesOf(db: Kysely<Database>, resultId: number): Promise<number> {
  const row = await db
    .selectFrom('result')
    .select('held_bytes')
    .where('id', '=', resultId)
    .executeTakeFirst();
  return Number(row?.held_bytes ?? 0);
}
