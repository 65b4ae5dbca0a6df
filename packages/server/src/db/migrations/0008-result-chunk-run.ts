import type { Kysely } from 'kysely';

/** The key of an output: `result-<result id>-<sha256>` (result-store/result-store.ts, outputKey). */
const OUTPUT_KEY = /^result-([1-9][0-9]{0,15})-[0-9a-f]{64}$/;

/**
 * The run of each object of the database result store (docs/large-results.md#the-result-store):
 * `result_chunk.result_id`, indexed, so that finding a run's outputs (which every report finishing a run does) is one
 * index lookup, not a scan of every stored piece. Null for the pieces of a write not finished yet. The objects
 * already stored get theirs from their key.
 */
export const resultChunkRun = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('result_chunk').addColumn('result_id', 'bigint').execute();
    await db.schema.createIndex('result_chunk_result_id').on('result_chunk').column('result_id').execute();
    const keys = (await db
      .selectFrom('result_chunk')
      .select('key')
      .distinct()
      .where('key', 'like', 'result-%')
      .execute()) as { key: string }[];
    for (const { key } of keys) {
      const id = OUTPUT_KEY.exec(key)?.[1];
      if (id !== undefined && Number.isSafeInteger(Number(id)))
        await db
          .updateTable('result_chunk')
          .set({ result_id: Number(id) })
          .where('key', '=', key)
          .execute();
    }
  },
};
