import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * The ids of a listing in their listing order, as a query a repository builds: pagination counts them and takes
 * one page (http/pagination.ts), the serializers load the page's rows.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type IdQuery = SelectQueryBuilder<Database, any, { id: number }>;

/** How many ids the listing has. */
export async function countIds(db: Kysely<Database>, ids: IdQuery): Promise<number> {
  const row = await db
    .selectFrom(ids.clearOrderBy().as('q'))
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The ids of one page (`limit` ids after `offset`), or all of them without `page`. */
export async function pageOfIds(ids: IdQuery, page?: { limit: number; offset: number }): Promise<number[]> {
  const rows = page ? await ids.limit(page.limit).offset(page.offset).execute() : await ids.execute();
  return rows.map((r) => r.id);
}
