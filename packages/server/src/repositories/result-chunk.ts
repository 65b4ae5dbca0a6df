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

/** Gives the pieces of `from` the key `to`, dropping what `to` held: the object appears whole or not at all. */
export async function renameChunks(db: Kysely<Database>, from: string, to: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('result_chunk').where('key', '=', to).execute();
    await trx.updateTable('result_chunk').set({ key: to }).where('key', '=', from).execute();
  });
}

export async function deleteChunks(db: Kysely<Database>, key: string): Promise<void> {
  await db.deleteFrom('result_chunk').where('key', '=', key).execute();
}

/** Deletes the objects whose key starts with `prefix` (a store key: no LIKE wildcard), except `keep`. */
export async function deleteOtherChunks(db: Kysely<Database>, prefix: string, keep: string): Promise<void> {
  await db.deleteFrom('result_chunk').where('key', 'like', `${prefix}%`).where('key', '!=', keep).execute();
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
