import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * The objects of the database result store (result-store/database-store.ts), as numbered pieces: an object is written
 * under a temporary key, piece by piece, and takes its key in one transaction once whole.
 */

export async function insertChunk(
  db: Kysely<Database>,
  key: string,
  seq: number,
  data: Buffer,
): Promise<void> {
  await db.insertInto('result_chunk').values({ key, seq, data }).execute();
}

/**
 * Gives the pieces of `from` the key `to` and the run `resultId` (null: no run's), dropping what `to` held: the
 * object appears whole or not at all.
 */
export async function renameChunks(
  db: Kysely<Database>,
  from: string,
  to: string,
  resultId: number | null,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('result_chunk').where('key', '=', to).execute();
    await trx
      .updateTable('result_chunk')
      .set({ key: to, result_id: resultId })
      .where('key', '=', from)
      .execute();
  });
}

export async function deleteChunks(db: Kysely<Database>, key: string): Promise<void> {
  await db.deleteFrom('result_chunk').where('key', '=', key).execute();
}

/**
 * Deletes the objects of run `resultId` except `keep` (all of them without it): one lookup of the index
 * `result_chunk_result_id`, whatever the table holds (migration 0008).
 */
export async function deleteRunChunks(db: Kysely<Database>, resultId: number, keep?: string): Promise<void> {
  await runChunksDeletion(db, resultId, keep).execute();
}

/** The statement of {@link deleteRunChunks}, for a test to read its plan. */
export function runChunksDeletion(db: Kysely<Database>, resultId: number, keep?: string) {
  const query = db.deleteFrom('result_chunk').where('result_id', '=', resultId);
  return keep === undefined ? query : query.where('key', '!=', keep);
}

/** The number of pieces and bytes of an object; pieces 0 when there is none. */
export async function chunkTotals(
  db: Kysely<Database>,
  key: string,
): Promise<{ pieces: number; bytes: number }> {
  const row = await db
    .selectFrom('result_chunk')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('pieces'),
      eb.fn.sum<number | string | null>(eb.fn('length', ['data'])).as('bytes'),
    ])
    .where('key', '=', key)
    .executeTakeFirst();
  return { pieces: Number(row?.pieces ?? 0), bytes: Number(row?.bytes ?? 0) };
}

/** Piece `seq` of an object, undefined past its end. */
export async function readChunk(db: Kysely<Database>, key: string, seq: number): Promise<Buffer | undefined> {
  const row = await db
    .selectFrom('result_chunk')
    .select('data')
    .where('key', '=', key)
    .where('seq', '=', seq)
    .executeTakeFirst();
  return row ? Buffer.from(row.data) : undefined;
}

/** Every object and temporary, with its size, by key. */
export async function listChunkObjects(db: Kysely<Database>): Promise<{ key: string; bytes: number }[]> {
  const rows = await db
    .selectFrom('result_chunk')
    .select((eb) => ['key', eb.fn.sum<number | string | null>(eb.fn('length', ['data'])).as('bytes')])
    .groupBy('key')
    .orderBy('key')
    .execute();
  return rows.map((row) => ({ key: row.key, bytes: Number(row.bytes ?? 0) }));
}
