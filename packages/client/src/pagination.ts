/**
 * Reading paginated listings (docs/api.md#pagination): `page`/`per_page` in the query, the number of matching items in
 * the `total-count` header.
 */
import { listOf } from '@federa/common';
import type { QueryValue } from './http.js';
import type { Session } from './session.js';
import type { Page } from './types.js';

/** How to read a listing. */
export interface ListOptions {
  /**
   * Read only this page (1-based). Without it every page is read and the items are concatenated.
   */
  page?: number;
  /**
   * Items per request.
   * @default 100
   */
  perPage?: number;
}

/** Page size of automatic paging when none is given. */
export const DEFAULT_PER_PAGE = 100;

function checkPositive(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
}

/** Reads one page of a listing. */
export async function readPage<T>(
  session: Session,
  path: string,
  filters: Record<string, QueryValue>,
  page: number,
  perPage: number,
  traceparent?: string,
): Promise<Page<T>> {
  checkPositive('page', page);
  checkPositive('perPage', perPage);
  const answer = await session.request({
    method: 'GET',
    path,
    query: { ...filters, page, perPage },
    traceparent,
  });
  const items = listOf<T>(answer.body);
  const header = answer.headers.get('total-count');
  const total = header !== null && /^\d+$/.test(header) ? Number(header) : items.length;
  return { items, total, page, perPage };
}

/** Reads a listing: every page (stopping at `total-count` or at an empty page), or only `options.page`. */
export async function readList<T>(
  session: Session,
  path: string,
  filters: Record<string, QueryValue>,
  options: ListOptions = {},
  traceparent?: string,
): Promise<T[]> {
  const perPage = options.perPage ?? DEFAULT_PER_PAGE;
  if (options.page !== undefined)
    return (await readPage<T>(session, path, filters, options.page, perPage, traceparent)).items;
  const all: T[] = [];
  for (let page = 1; ; page++) {
    const result = await readPage<T>(session, path, filters, page, perPage, traceparent);
    all.push(...result.items);
    if (result.items.length === 0 || all.length >= result.total || result.items.length < perPage) return all;
  }
}
