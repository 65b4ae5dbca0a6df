import { SqliteAdapter, type CompiledQuery, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import { Placeholder, bound, placeholdersOf, prepared, type PreparedArg } from '../db/prepared.js';

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
  return countFitsBeside(ids) ? ids.select(() => count.as('listing_total')) : null;
}

/** Whether a listing's count can be a column beside its ids: no DISTINCT, GROUP BY, set operation or limit. */
function countFitsBeside(ids: IdQuery): boolean {
  const node = ids.toOperationNode();
  return (
    !node.frontModifiers?.length &&
    !node.distinctOn &&
    !node.groupBy &&
    !node.having &&
    !node.setOperations &&
    !node.limit &&
    !node.offset
  );
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

  /**
   * The rows `query` makes of one page of the listing (or of all of it, without `page`), in listing order, and how
   * many the listing has. On PostgreSQL in one round trip, the page's ids and its count as a subquery of the rows'
   * query, where the listing is ordered by id (all of Federa's are); else the ids first, then their rows.
   */
  async rows<R extends { id: number }>(
    query: RowsQuery<R>,
    page?: { limit: number; offset: number },
  ): Promise<{ total: number; rows: R[] }> {
    const combined = combinedQueries(this.db, this.queries, query);
    // A listing the page's count cannot go beside (DISTINCT, GROUP BY…) or not ordered by id: ids, then rows.
    if (!combined || (page && !combined.paged)) {
      const { total, ids } = page ? await this.page(page) : await this.#allCounted();
      return { total, rows: ids.length ? inOrder(ids, await query.byIds(this.db, ids)) : [] };
    }
    const byId = (rows: R[]): R[] =>
      rows.sort(combined.descending ? (a, b) => b.id - a.id : (a, b) => a.id - b.id);
    if (!page) {
      const rows = byId(await this.#rows(combined.all as CompiledQuery<R>));
      return { total: rows.length, rows };
    }
    const rows = await this.#rows(combined.paged as CompiledQuery<R & CountColumn>, page);
    const first = rows[0];
    if (first) return { total: Number(first.listing_total), rows: byId(rows) };
    if (page.offset === 0) return { total: 0, rows: [] };
    // Past the last page: no row carries the count.
    const countRows = await this.#rows(this.queries.count);
    return { total: Number(countRows[0]?.n ?? 0), rows: [] };
  }

  /** The same listing in the order `sort` gives (see {@link sortedIds}), compiled once per listing shape and order. */
  sorted(sort: ListingSort): PreparedListing {
    let orders = sortedShapes.get(this.queries);
    if (!orders) sortedShapes.set(this.queries, (orders = new Map()));
    const key = sortKey(sort);
    let queries = orders.get(key);
    if (!queries) {
      const ids = sortedIds(this.db, this.queries.ids, sort);
      const limit = new Placeholder(LIMIT, null) as unknown as number;
      const offset = new Placeholder(OFFSET, null) as unknown as number;
      queries = {
        counted:
          idsWithCount(this.db, ids, this.queries.counting)?.limit(limit).offset(offset).compile() ?? null,
        count: this.queries.count,
        page: ids.limit(limit).offset(offset).compile(),
        all: ids.compile(),
        ids,
        counting: this.queries.counting,
        combined: new WeakMap(),
      };
      orders.set(key, queries);
    }
    return new PreparedListing(this.db, queries, this.valueOf);
  }

  async #allCounted(): Promise<{ total: number; ids: number[] }> {
    const ids = await this.all();
    return { total: ids.length, ids };
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

/**
 * An order asked of a listing (vantage6 4.x's `sort=`): columns of the listed items' table, each ascending or
 * descending; ties keep the listing's id order. Column names come from a fixed list of the route (never from the
 * caller as they are).
 */
export interface ListingSort {
  table: 'organization' | 'collaboration' | 'node' | 'user' | 'role' | 'rule' | 'task' | 'result' | 'study';
  columns: readonly { column: string; descending: boolean }[];
}

const sortKey = (sort: ListingSort): string =>
  `${sort.table}:${sort.columns.map((c) => `${c.descending ? '-' : ''}${c.column}`).join(',')}`;

const sortedShapes = new WeakMap<ListingQueries, Map<string, ListingQueries>>();

/** A listing's ids in the order `sort` gives: the ids, joined to their rows, ordered by the columns, then by id. */
export function sortedIds(db: Kysely<Database>, ids: IdQuery, sort: ListingSort): IdQuery {
  // The table name is one of ListingSort's; Kysely cannot type a join on a table chosen at run time.
  const joined = db
    .selectFrom(ids.clearOrderBy().as('q'))
    .innerJoin(`${sort.table} as s` as 'organization as s', 's.id', 'q.id');
  let q = joined.select('q.id as id') as unknown as IdQuery;
  for (const { column, descending } of sort.columns)
    q = q.orderBy(`s.${column}` as never, descending ? 'desc' : 'asc');
  return q.orderBy('q.id' as never);
}

const LIMIT = '$limit';
const OFFSET = '$offset';

interface ListingQueries {
  counted: CompiledQuery<{ id: number; listing_total: number | string | null }> | null;
  count: CompiledQuery<{ n: number | string | null }>;
  page: CompiledQuery<{ id: number }>;
  all: CompiledQuery<{ id: number }>;
  /** The listing's ids (with placeholders), its count query, and whether it is ordered by id, for rows queries. */
  ids: IdQuery;
  counting: CountQuery;
  /** The compiled rows queries of this shape, by rows query (see {@link combinedQueries}); null: not ordered by id. */
  combined: WeakMap<RowsQuery<{ id: number }>, CombinedQueries | null>;
}

/** The listing's count beside each row of a page. */
interface CountColumn {
  listing_total: number | string | null;
}

/**
 * A rows query with a listing's ids as its subquery: a page with its count (null when the count cannot go beside
 * the ids), and all of them.
 */
interface CombinedQueries {
  paged: CompiledQuery<{ id: number } & CountColumn> | null;
  all: CompiledQuery<{ id: number }>;
  descending: boolean;
}

/**
 * Which ids a rows query loads: a list of ids, or a listing's ids as a subquery (`where id in (select …)`), so that
 * the rows of a page come in the same round trip as the page.
 */
export type IdSource = readonly number[] | IdQuery;

/** The rows of some ids as a serializer needs them, built for a list of ids or for a listing's subquery. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RowsBuilder<R> = (db: Kysely<Database>, ids: IdSource) => SelectQueryBuilder<Database, any, R>;

/** A rows query: by a list of ids (prepared per length, as `prepared`), or inside a listing ({@link PreparedListing.rows}). */
export interface RowsQuery<R extends { id: number }> {
  readonly build: RowsBuilder<R>;
  /** The rows of these ids, in no particular order. */
  readonly byIds: (db: Kysely<Database>, ids: readonly number[]) => Promise<R[]>;
}

/** The row type of a {@link RowsQuery}. */
export type RowOf<Q> = Q extends RowsQuery<infer R> ? R : never;

export function rowsQuery<R extends { id: number }>(build: RowsBuilder<R>): RowsQuery<R> {
  return { build, byIds: prepared((db, ids: readonly number[]) => build(db, ids)) };
}

/** Rows in the order of `ids` (after a `where id in (…)` load); ids without a row are left out. */
export function inOrder<R extends { id: number }>(ids: readonly number[], rows: readonly R[]): R[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Whether a listing is ordered by its `id` column alone, and how (true: descending); null for any other order,
 * whose rows cannot be put back in listing order from their ids.
 */
function idOrder(ids: IdQuery): boolean | null {
  const items = ids.toOperationNode().orderBy?.items ?? [];
  const [item] = items;
  if (items.length !== 1 || !item) return null;
  const by = item.orderBy as { kind?: string; column?: { column?: { name?: string } } };
  if (by.kind !== 'ReferenceNode' || by.column?.column?.name !== 'id') return null;
  const direction = item.direction as { kind?: string; sqlFragments?: readonly string[] } | undefined;
  if (direction === undefined) return false;
  const word =
    direction.kind === 'RawNode' ? direction.sqlFragments?.join('').trim().toLowerCase() : undefined;
  return word === 'desc' ? true : word === 'asc' ? false : null;
}

/** The queries of `query` over this listing's ids, compiled once per listing shape. */
function combinedQueries<R extends { id: number }>(
  db: Kysely<Database>,
  queries: ListingQueries,
  query: RowsQuery<R>,
): CombinedQueries | null {
  const key = query as unknown as RowsQuery<{ id: number }>;
  let combined = queries.combined.get(key);
  if (combined === undefined) {
    const descending = idOrder(queries.ids);
    // SQLite runs in this process, where a round trip costs nothing, and it runs the rows of an id subquery more
    // slowly than those of a list of ids (about 60 against 48 µs for a page of ten tasks): two statements there.
    if (descending === null || db.getExecutor().adapter instanceof SqliteAdapter) combined = null;
    else {
      const limit = new Placeholder(LIMIT, null) as unknown as number;
      const offset = new Placeholder(OFFSET, null) as unknown as number;
      const counted = countFitsBeside(queries.ids);
      combined = {
        paged: counted
          ? (query
              .build(db, queries.ids.limit(limit).offset(offset))
              .select(() => queries.counting.as('listing_total'))
              .compile() as CompiledQuery<{ id: number } & CountColumn>)
          : null,
        all: query.build(db, queries.ids.clearOrderBy()).compile(),
        descending,
      };
    }
    queries.combined.set(key, combined);
  }
  return combined;
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
        ids,
        counting,
        combined: new WeakMap(),
      };
      if (byShape.size >= 100) byShape.clear();
      byShape.set(shape, queries);
    }
    return new PreparedListing(db, queries, (k) => named[k as string]);
  };
}
