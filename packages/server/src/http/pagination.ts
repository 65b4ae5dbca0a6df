import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from '@sinclair/typebox';
import { withoutIds } from '../serializers/schema-utils.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import {
  PreparedListing,
  countedPage,
  pageOfIds,
  sortedIds,
  type IdQuery,
  type ListingSort,
  type RowsQuery,
} from '../repositories/listing.js';

/**
 * The order a listing's request asks for, when its surface lets callers choose one (vantage6 4.x's `sort=`, set by
 * routes/v4/sorting.ts); without one a listing keeps its own order.
 */
export const listingSorts = new WeakMap<FastifyRequest, ListingSort>();

/** Query parameters every paginated listing accepts (docs/api.md#pagination). */
export const PaginationQuery = {
  page: Type.Optional(
    Type.Integer({ minimum: 1, description: '1-based page number; without it every item is returned' }),
  ),
  per_page: Type.Optional(
    Type.Integer({ minimum: 1, description: 'page size (default 10), used with page' }),
  ),
  include: Type.Optional(
    Type.Array(Type.String(), { description: '`metadata` wraps the items in {data, links}; repeatable' }),
  ),
};

export interface PageParams {
  page?: number;
  per_page?: number;
  include?: string[];
}

export const includes = (q: { include?: string[] | undefined }, what: string): boolean =>
  (q.include ?? []).includes(what);

export interface PaginateOptions {
  /**
   * The schema of this answer's items when the route's response schema is a union of item forms (e.g. tasks with
   * or without results): the answer is then written with that form's serializer instead of the union's, which
   * checks every item against each branch.
   */
  items?: TSchema;
}

const listSchemas = new WeakMap<TSchema, { array: TSchema; envelope: TSchema }>();

/** The bare-array and `{data, links}` schemas of an item schema, built once per item schema. */
function listSchema(item: TSchema, metadata: boolean): TSchema {
  let pair = listSchemas.get(item);
  if (!pair) {
    const plain = withoutIds(item);
    pair = {
      array: Type.Array(plain),
      envelope: Type.Object({ data: Type.Array(plain), links: Type.Record(Type.String(), Type.String()) }),
    };
    listSchemas.set(item, pair);
  }
  return metadata ? pair.envelope : pair.array;
}

/** The bare-array or `{data, links}` form of the route's `Paginated` answer schema, if it has one. */
function paginatedForm(request: FastifyRequest, metadata: boolean): TSchema | undefined {
  const response = (request.routeOptions.schema?.response as Record<string, unknown> | undefined)?.['200'];
  const forms = (response as { anyOf?: TSchema[] } | undefined)?.anyOf;
  const [array, envelope] = forms ?? [];
  if (forms?.length !== 2 || array?.type !== 'array' || !envelope?.properties?.data) return undefined;
  return metadata ? envelope : array;
}

/**
 * The request URL for any page: original parameters, first value of repeated ones, `page` replaced (or put first).
 * The query is read once; each page's URL is then a concatenation.
 */
function pageUrls(request: FastifyRequest): (page: number) => string {
  const [path, search = ''] = request.url.split('?');
  const params = new URLSearchParams(search);
  const seen = new Set<string>();
  const before: [string, string][] = [];
  const after: [string, string][] = [];
  for (const [k, v] of params) {
    if (seen.has(k)) continue;
    seen.add(k);
    if (k !== 'page') (seen.has('page') ? after : before).push([k, v]);
  }
  // Without a page parameter, page goes first.
  const head = seen.has('page') ? new URLSearchParams(before).toString() : '';
  const tail = new URLSearchParams(seen.has('page') ? after : before).toString();
  const start = `${path}?${head ? `${head}&` : ''}page=`;
  const end = tail ? `&${tail}` : '';
  return (page) => `${start}${page}${end}`;
}

/**
 * How a listing's page becomes items: from its ids (a function), or from the rows a {@link RowsQuery} makes of them
 * ({@link fromRows}), which a prepared listing reads in the same query as the page and its count: one round trip
 * to the database instead of two.
 */
export type PageLoad<T> = ((ids: number[]) => Promise<T[]>) | RowsLoad<T>;

interface RowsLoad<T> {
  readonly rows: RowsQuery<{ id: number }>;
  readonly items: (rows: readonly { id: number }[]) => T[] | Promise<T[]>;
}

/** A {@link PageLoad} from rows: `items` gets the page's rows in listing order. */
export function fromRows<R extends { id: number }, T>(
  rows: RowsQuery<R>,
  items: (rows: readonly R[]) => T[] | Promise<T[]>,
): PageLoad<T> {
  return { rows, items } as unknown as RowsLoad<T>;
}

/** Every id of an unpaged listing, and their number. */
async function allIds(ids: IdQuery | PreparedListing): Promise<{ total: number; ids: number[] }> {
  const all = ids instanceof PreparedListing ? await ids.all() : await pageOfIds(ids);
  return { total: all.length, ids: all };
}

type PaginatedAnswer<T> = Promise<T[] | { data: T[]; links: Record<string, string> }>;

/**
 * Runs a paginated listing. `ids` selects the matching ids in their listing order; `load` turns a page of ids
 * into serialized items (same order), or items from the page's rows, which only a prepared listing reads
 * ({@link PreparedListing.rows}). Sets `total-count` and `Link`; answers a bare array, or `{data, links}` with
 * `include=metadata`.
 */
export function paginate<T>(
  db: Kysely<Database>,
  request: FastifyRequest,
  reply: FastifyReply,
  ids: PreparedListing,
  load: PageLoad<T>,
  options?: PaginateOptions,
): PaginatedAnswer<T>;
export function paginate<T>(
  db: Kysely<Database>,
  request: FastifyRequest,
  reply: FastifyReply,
  ids: IdQuery | PreparedListing,
  load: (ids: number[]) => Promise<T[]>,
  options?: PaginateOptions,
): PaginatedAnswer<T>;
export async function paginate<T>(
  db: Kysely<Database>,
  request: FastifyRequest,
  reply: FastifyReply,
  ids: IdQuery | PreparedListing,
  load: PageLoad<T>,
  options: PaginateOptions = {},
): PaginatedAnswer<T> {
  const q = request.query as PageParams;
  const sort = listingSorts.get(request);
  if (sort) ids = ids instanceof PreparedListing ? ids.sorted(sort) : sortedIds(db, ids, sort);
  const paged = q.page !== undefined;
  const perPage = q.per_page ?? 10;
  const page = q.page ?? 1;
  const window = { limit: perPage, offset: (page - 1) * perPage };
  let total: number;
  let items: T[];
  if (typeof load !== 'function') {
    // Rows come with a prepared listing only (the overloads above).
    const found = await (ids as PreparedListing).rows(load.rows, paged ? window : undefined);
    total = found.total;
    items = found.rows.length ? await load.items(found.rows) : [];
  } else {
    const listed = !paged
      ? await allIds(ids)
      : ids instanceof PreparedListing
        ? await ids.page(window)
        : await countedPage(db, ids, window);
    total = listed.total;
    items = listed.ids.length ? await load(listed.ids) : [];
  }
  const last = paged ? Math.max(1, Math.ceil(total / perPage)) : 1;
  const links: Record<string, string> = {};
  const pageUrl = pageUrls(request);
  links.first = pageUrl(1);
  if (paged && page > 1) links.previous = pageUrl(Math.min(page - 1, last));
  links.self = pageUrl(page);
  if (paged && page < last) links.next = pageUrl(page + 1);
  if (total > 0) links.last = pageUrl(last);
  void reply.header('total-count', String(total));
  void reply.header(
    'Link',
    Object.entries(links)
      .map(([rel, url]) => `<${url}>; rel=${rel}`)
      .join(','),
  );
  const metadata = includes(q, 'metadata');
  // The answer's own form (bare array or envelope) is written with its serializer: the union's would first check
  // the whole answer against each form (serializers/common.ts `Paginated`).
  const form = options.items ? listSchema(options.items, metadata) : paginatedForm(request, metadata);
  // A serializer of its own leaves the content type to the route (Fastify sets it only for its own).
  if (form)
    void reply
      .type('application/json; charset=utf-8')
      .serializer(reply.compileSerializationSchema(form, '200'));
  return metadata ? { data: items, links } : items;
}

/** Orders items like `ids` (after a `WHERE id IN (...)` load). */
export { inOrder } from '../repositories/listing.js';
