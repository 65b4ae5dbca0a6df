import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../uri.js';

/**
 * `store_catalogue_version`: one number that moves, by trigger, with every change of the store's algorithms, their
 * functions and its policies, whoever writes them (this process, another instance, a shell). The store keeps its
 * answers in memory while the number stays the same (store/catalogue-cache.ts): one read by primary key instead
 * of a listing's queries, and unaffected by the writes of the rest of the server (tasks, runs, nodes seen).
 */
export const storeCatalogueVersion = (dialect: DialectName) => ({
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('store_catalogue_version')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('version', 'bigint', (c) => c.notNull())
      .execute();
    await sql`insert into store_catalogue_version (id, version) values (1, 0)`.execute(db);
    const tables = ['store_algorithm', 'store_function', 'store_policy'];
    if (dialect === 'sqlite') {
      for (const table of tables)
        for (const event of ['insert', 'update', 'delete'])
          await sql
            .raw(
              `create trigger ${table}_${event}_version after ${event} on ${table} begin
                 update store_catalogue_version set version = version + 1 where id = 1;
               end`,
            )
            .execute(db);
      return;
    }
    await sql`create function store_catalogue_bump() returns trigger language plpgsql as $$
      begin
        update store_catalogue_version set version = version + 1 where id = 1;
        return null;
      end $$`.execute(db);
    for (const table of tables)
      await sql
        .raw(
          `create trigger ${table}_version after insert or update or delete on ${table}
             for each statement execute function store_catalogue_bump()`,
        )
        .execute(db);
  },
});
