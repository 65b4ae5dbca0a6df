import type { Kysely } from 'kysely';

/**
 * `blob`: the uploads vantage6 4.x clients, nodes and algorithms send to `POST /v4/api/blobstream`
 * (docs/vantage6-4.md#uploads-to-blobstream), held in the result store under `blob-<uuid>`. The row is written
 * before the first byte is stored and its `size` once the last one is, so an upload cut short, or a server stopped
 * in the middle of one, leaves a row the expiry sweep finds (result-store/blob-sweep.ts) and nothing in the store
 * that no row names. `result_id` is the run whose input the upload became; a run deleted leaves it null, and the
 * sweep then removes it as an upload no task references.
 */
export const blobs = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('blob')
      .addColumn('uuid', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('uploader_kind', 'varchar(16)', (c) => c.notNull())
      .addColumn('uploader_id', 'integer', (c) => c.notNull())
      .addColumn('organization_id', 'integer', (c) => c.notNull())
      .addColumn('collaboration_id', 'integer')
      .addColumn('size', 'bigint')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('result_id', 'integer', (c) => c.references('result.id').onDelete('set null'))
      .execute();
    // The sweep's look (unreferenced, oldest first) and the foreign key's index.
    await db.schema
      .createIndex('blob_unreferenced')
      .on('blob')
      .columns(['result_id', 'created_at'])
      .execute();
  },
};
