import type { TestApp } from './test-app.js';

const idsOf = (items: unknown): number[] => (items as { id: number }[]).map((x) => x.id);

/**
 * Checks page 2 (per_page 2) of a paginated listing whose full, ordered ids are `all`: the slice, the
 * `total-count` and `Link` headers, and the `{data, links}` body with `include=metadata`.
 */
export async function expectSecondPage(
  t: TestApp,
  path: string,
  token: string,
  all: number[],
): Promise<void> {
  // Loaded here, not at the top: the package is also used outside vitest (benchmarks).
  const { expect } = await import('vitest');
  expect(all.length).toBeGreaterThanOrEqual(3);
  const r = await t.api('GET', path, { token, query: { page: 2, per_page: 2 } });
  expect(r.status).toBe(200);
  expect(idsOf(r.body)).toEqual(all.slice(2, 4));
  expect(r.headers['total-count']).toBe(String(all.length));
  const at = (page: number) => `/api${path}?page=${page}&per_page=2`;
  const last = Math.ceil(all.length / 2);
  const rels = [`<${at(1)}>; rel=first`, `<${at(1)}>; rel=previous`, `<${at(2)}>; rel=self`];
  if (last > 2) rels.push(`<${at(3)}>; rel=next`);
  rels.push(`<${at(last)}>; rel=last`);
  expect(r.headers.link).toBe(rels.join(','));
  const meta = await t.api('GET', path, { token, query: { page: 2, per_page: 2, include: 'metadata' } });
  expect(idsOf(meta.body.data)).toEqual(all.slice(2, 4));
  expect(meta.body.links.self).toBe(`/api${path}?page=2&per_page=2&include=metadata`);
}
