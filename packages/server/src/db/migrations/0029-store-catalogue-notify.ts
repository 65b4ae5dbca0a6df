import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../uri.js';

/**
 * PostgreSQL: the trigger that moves `store_catalogue_version` (0027) also sends a notification on the channel
 * `federa_store_catalogue`, delivered when the change commits. Every instance listens on it, so a kept catalogue
 * page is answered without a round trip to the database while nothing changed (store/catalogue-listener.ts).
 * SQLite reads its version in-process and needs nothing.
 */
export const storeCatalogueNotify = (dialect: DialectName) => ({
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    if (dialect === 'sqlite') return;
    await sql`create or replace function store_catalogue_bump() returns trigger language plpgsql as $$
      begin
        update store_catalogue_version set version = version + 1 where id = 1;
        perform pg_notify('federa_store_catalogue', '');
        return null;
      end $$`.execute(db);
  },
});
