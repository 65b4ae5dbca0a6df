import type { Kysely } from 'kysely';
import type { DialectName } from '../uri.js';

/**
 * Results held in the result store (docs/large-results.md): `result.result_size` and `result.result_sha256` say that a
 * run's output is the stored object of that checksum (`result.result` is then null); `result_chunk` holds the
 * objects of the database store, in pieces, so that neither writing nor reading one needs it whole in memory.
 */
export function storedResults(dialect: DialectName) {
  return {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('result').addColumn('result_size', 'bigint').execute();
      await db.schema.alterTable('result').addColumn('result_sha256', 'varchar(64)').execute();
      await db.schema
        .createTable('result_chunk')
        .addColumn('key', 'varchar(200)', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('data', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
        .addPrimaryKeyConstraint('result_chunk_pk', ['key', 'seq'])
        .execute();
    },
  };
}
