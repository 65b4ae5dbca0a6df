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

/**
 * One page of ids and how many the listing has, in one query where it can (the count beside the page's ids): one
 * round trip to the database instead of two. Listings with DISTINCT, GROUP BY or a set operation, and a page past
 * the end, are counted on their own.
 */
export async function countedPage(
  db: Kysely<Database>,
  ids: IdQuery,
  page: { limit: number; offset: number },
): Promise<{ total: number; ids: number[] }> {
  const node = ids.toOperationNode();
  const plain =
    !node.frontModifiers?.length &&
    !node.distinctOn &&
    !node.groupBy &&
    !node.having &&
    !node.setOperations &&
    !node.limit &&
    !node.offset;
  if (plain) {
    // The count as a scalar subquery, which both databases run once (a window `count(*) over ()` costs SQLite
    // ten times as much).
    const rows = await ids
      .select(() =>
        db
          .selectFrom(ids.clearOrderBy().as('q'))
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .as('listing_total'),
      )
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    const first = rows[0];
    if (first) return { total: Number(first.listing_total), ids: rows.map((r) => r.id) };
    if (page.offset === 0) return { total: 0, ids: [] };
  }
  const [total, pageIds] = await Promise.all([countIds(db, ids), pageOfIds(ids, page)]);
  return { total, ids: pageIds };
}
