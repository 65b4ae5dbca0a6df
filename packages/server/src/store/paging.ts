import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { countedPage, type IdQuery } from '../repositories/listing.js';

/** The store's listings answer as vantage6 4.x's do: always `{data, links}`, page 1 of 10 unless asked. */
export const StorePageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1, description: '1-based page number' })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 10, description: 'page size' })),
};

export async function storePage<T>(
  db: Kysely<Database>,
  request: FastifyRequest,
  reply: FastifyReply,
  ids: IdQuery,
  load: (ids: number[]) => Promise<T[]>,
  counted?: (total: number) => void,
): Promise<{ data: T[]; links: Record<string, string> }> {
  const q = request.query as { page?: number; per_page?: number };
  const page = q.page ?? 1;
  const perPage = q.per_page ?? 10;
  const { total, ids: pageIds } = await countedPage(db, ids, {
    limit: perPage,
    offset: (page - 1) * perPage,
  });
  const links = pageLinks(request, reply, page, perPage, total);
  counted?.(total);
  return { data: await load(pageIds), links };
}

/** A page of a list the store holds in memory (a fixed catalogue), as {@link storePage} answers one. */
export function storeListPage<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  items: readonly T[],
): { data: T[]; links: Record<string, string> } {
  const q = request.query as { page?: number; per_page?: number };
  const page = q.page ?? 1;
  const perPage = q.per_page ?? 10;
  const links = pageLinks(request, reply, page, perPage, items.length);
  return { data: items.slice((page - 1) * perPage, page * perPage), links };
}

/** The links of page `page` of `total` items, and the `total-count` header. */
function pageLinks(
  request: FastifyRequest,
  reply: FastifyReply,
  page: number,
  perPage: number,
  total: number,
): Record<string, string> {
  const last = Math.max(1, Math.ceil(total / perPage));
  const [path, search = ''] = request.url.split('?');
  const url = (n: number): string => {
    const params = new URLSearchParams(search);
    params.set('page', String(n));
    return `${path}?${params.toString()}`;
  };
  const links: Record<string, string> = { first: url(1), self: url(page), last: url(last) };
  if (page > 1) links.previous = url(Math.min(page - 1, last));
  if (page < last) links.next = url(page + 1);
  void reply.header('total-count', String(total));
  return links;
}
