import type { CompiledQuery, Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import { Placeholder, bound, placeholdersOf, type PreparedArg } from '../db/prepared.js';

/**
 * The ids of a listing in their listing order, as a query a repository builds: pagination counts them and takes
 * one page (http/pagination.ts), the serializers load the page's rows.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type IdQuery = SelectQueryBuilder<Database, any, { id: number }>;

/** How many ids the listing has. */
export async function countIds(db: Kysely<Database>, ids: IdQuery): Promise<number> {
  const row = await countQuery(db, ids).executeTakeFirst();
  return Number(row?.n ?? 0);
}

const countQuery = (db: Kysely<Database>, ids: IdQuery): CountQuery =>
  db.selectFrom(ids.clearOrderBy().as('q')).select((eb) => eb.fn.countAll<number | string>().as('n'));

/** A query of one row with the number of ids of a listing (`n`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type CountQuery = SelectQueryBuilder<Database, any, { n: number | string | null }>;

/** The ids of one page (`limit` ids after `offset`), or all of them without `page`. */
export async function pageOfIds(ids: IdQuery, page?: { limit: number; offset: number }): Promise<number[]> {
  const rows = page ? await ids.limit(page.limit).offset(page.offset).execute() : await ids.execute();
  return rows.map((r) => r.id);
}

/**
 * The ids with the listing's count beside each (`listing_total`), or null for listings with DISTINCT, GROUP BY or
 * a set operation, which are counted on their own. The count is a scalar subquery, which both databases run once
 * (a window `count(*) over ()` costs SQLite ten times as much).
 */
function idsWithCount(db: Kysely<Database>, ids: IdQuery, count: CountQuery = countQuery(db, ids)) {
  const node = ids.toOperationNode();
  const plain =
    !node.frontModifiers?.length &&
    !node.distinctOn &&
    !node.groupBy &&
    !node.having &&
    !node.setOperations &&
    !node.limit &&
    !node.offset;
  return plain ? ids.select(() => count.as('listing_total')) : null;
}

/** One page of ids and the listing's count from the rows of {@link idsWithCount} (null: none on this page). */
function fromCountedRows(
  rows: readonly { id: number; listing_total: number | string | null }[],
): { total: number; ids: number[] } | null {
  const first = rows[0];
  return first ? { total: Number(first.listing_total), ids: rows.map((r) => r.id) } : null;
}

/**
 * One page of ids and how many the listing has, in one query where it can (the count beside the page's ids): one
 * round trip to the database instead of two. A page past the end is counted on its own.
 */
export async function countedPage(
  db: Kysely<Database>,
  ids: IdQuery,
  page: { limit: number; offset: number },
): Promise<{ total: number; ids: number[] }> {
  const counted = idsWithCount(db, ids);
  if (counted) {
    const found = fromCountedRows(await counted.limit(page.limit).offset(page.offset).execute());
    if (found) return found;
    if (page.offset === 0) return { total: 0, ids: [] };
  }
  const [total, pageIds] = await Promise.all([countIds(db, ids), pageOfIds(ids, page)]);
  return { total, ids: pageIds };
}

/**
 * A listing whose queries were compiled before (see {@link preparedListing}); http/pagination.ts runs it like an
 * {@link IdQuery}.
 */
export class PreparedListing {
  constructor(
    readonly db: Kysely<Database>,
    readonly queries: ListingQueries,
    readonly valueOf: (arg: number | string) => unknown,
  ) {}

  async #rows<O>(query: CompiledQuery<O>, page?: { limit: number; offset: number }): Promise<O[]> {
    const values = (arg: number | string): unknown =>
      arg === LIMIT ? page?.limit : arg === OFFSET ? page?.offset : this.valueOf(arg);
    return (await this.db.executeQuery(bound(query, values))).rows;
  }

  /** Every id, in listing order. */
  async all(): Promise<number[]> {
    return (await this.#rows(this.queries.all)).map((r) => r.id);
  }

  /** One page of ids and how many the listing has (as {@link countedPage}). */
  async page(page: { limit: number; offset: number }): Promise<{ total: number; ids: number[] }> {
    const { counted, count, page: pageQuery } = this.queries;
    if (counted) {
      const found = fromCountedRows(await this.#rows(counted, page));
      if (found) return found;
      if (page.offset === 0) return { total: 0, ids: [] };
    }
    const [countRows, pageRows] = await Promise.all([this.#rows(count), this.#rows(pageQuery, page)]);
    return { total: Number(countRows[0]?.n ?? 0), ids: pageRows.map((r) => r.id) };
  }
}

const LIMIT = '$limit';
const OFFSET = '$offset';

interface ListingQueries {
  counted: CompiledQuery<{ id: number; listing_total: number | string | null }> | null;
  count: CompiledQuery<{ n: number | string | null }>;
  page: CompiledQuery<{ id: number }>;
  all: CompiledQuery<{ id: number }>;
}

/** Named arguments of a prepared listing; an absent (undefined) one is left out of the query. */
export type ListingArgs = Record<string, PreparedArg | undefined>;

/**
 * A listing built and compiled once per shape, then run with new values: building a Kysely query with its count
 * and page costs more than SQLite takes to run it (about 15 µs for the task list's). The shape is which
 * arguments are given, the length of array arguments, and the values of the `forms` arguments, which decide the
 * form of the query (a status filter; their values must come from a small fixed set). `build` gets those as they
 * are and placeholders for the others, which, as for `prepared`, it may use only as values. `count`, given the same,
 * may return a cheaper query of the listing's count for this shape (a count kept by the database, say); without
 * one, the ids are counted.
 */
export function preparedListing<A extends { [K in keyof A]: PreparedArg | undefined }>(
  build: (db: Kysely<Database>, args: A) => IdQuery,
  forms: readonly (keyof A & string)[] = [],
  count?: (db: Kysely<Database>, args: A) => CountQuery | undefined,
): (db: Kysely<Database>, args: A) => PreparedListing {
  const byDb = new WeakMap<Kysely<Database>, Map<string, ListingQueries>>();
  const formKeys: ReadonlySet<string> = new Set(forms);
  return (db, args) => {
    let byShape = byDb.get(db);
    if (!byShape) byDb.set(db, (byShape = new Map()));
    const named = args as ListingArgs;
    const given = Object.keys(named).filter((k) => named[k] !== undefined);
    const shape = `${given
      .map((k) => {
        const v = named[k];
        return Array.isArray(v) ? `${k}[${v.length}]` : formKeys.has(k) ? `${k}=${String(v)}` : k;
      })
      .join(',')}`;
    let queries = byShape.get(shape);
    if (!queries) {
      const placeholders: ListingArgs = {};
      for (const k of given)
        placeholders[k] = formKeys.has(k)
          ? named[k]
          : (placeholdersOf(k, named[k] as PreparedArg) as unknown as PreparedArg);
      const ids = build(db, placeholders as unknown as A);
      const limit = new Placeholder(LIMIT, null) as unknown as number;
      const offset = new Placeholder(OFFSET, null) as unknown as number;
      const counting = count?.(db, placeholders as unknown as A) ?? countQuery(db, ids);
      queries = {
        counted: idsWithCount(db, ids, counting)?.limit(limit).offset(offset).compile() ?? null,
        count: counting.compile(),
        page: ids.limit(limit).offset(offset).compile(),
        all: ids.compile(),
      };
      if (byShape.size >= 100) byShape.clear();
      byShape.set(shape, queries);
    }
    return new PreparedListing(db, queries, (k) => named[k as string]);
  };
}
