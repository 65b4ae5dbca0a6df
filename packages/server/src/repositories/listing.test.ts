import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queriesDuring, startTestApp, TEST_DIALECT, type TestApp } from '@federa/testing';
import { inOrder, preparedListing, rowsQuery, type PreparedListing, type RowsQuery } from './listing.js';

// A page of a listing and its rows in one query on PostgreSQL (PreparedListing.rows), against the two queries it
// replaces, which SQLite keeps: the same rows in the same order and the same count, on every page, and a round trip
// fewer.
const remote = TEST_DIALECT === 'postgres';

const organizationsAsc = preparedListing((db, f: { name?: string | undefined }) => {
  let ids = db.selectFrom('organization').select('organization.id as id').orderBy('organization.id');
  if (f.name !== undefined) ids = ids.where('organization.name', 'like', f.name);
  return ids;
});
const organizationsDesc = preparedListing((db, f: { name?: string | undefined }) => {
  let ids = db.selectFrom('organization').select('organization.id as id').orderBy('organization.id', 'desc');
  if (f.name !== undefined) ids = ids.where('organization.name', 'like', f.name);
  return ids;
});
/** Ordered by name: its rows cannot be put back in order from their ids, so it takes the two queries. */
const organizationsByName = preparedListing((db, f: { name?: string | undefined }) => {
  let ids = db
    .selectFrom('organization')
    .select('organization.id as id')
    .orderBy('organization.name', 'desc');
  if (f.name !== undefined) ids = ids.where('organization.name', 'like', f.name);
  return ids;
});

/** With DISTINCT, which its count cannot go beside: its page is read with the rows, and counted on its own. */
const organizationsDistinct = preparedListing((db, f: { name?: string | undefined }) => {
  let ids = db
    .selectFrom('organization')
    .select('organization.id as id')
    .distinct()
    .orderBy('organization.id');
  if (f.name !== undefined) ids = ids.where('organization.name', 'like', f.name);
  return ids;
});

const names: RowsQuery<{ id: number; name: string | null }> = rowsQuery((db, ids) =>
  db.selectFrom('organization').select(['id', 'name']).where('organization.id', 'in', ids),
);

/** The rows of a page the way they were read before: the page's ids, then their rows. */
async function twoQueries(t: TestApp, listing: PreparedListing, page?: { limit: number; offset: number }) {
  const { total, ids } = page ? await listing.page(page) : { total: -1, ids: await listing.all() };
  const rows = ids.length ? inOrder(ids, await names.byIds(t.ctx.dbh.db, ids)) : [];
  return { total: page ? total : rows.length, rows };
}

describe('a listing page with its rows', () => {
  let t: TestApp;
  const prefix = `listing-${Date.now().toString(36)}`;
  beforeAll(async () => {
    t = await startTestApp();
    // Names in the reverse order of the ids, so that an order by name is not an order by id.
    for (let i = 0; i < 23; i++)
      await t.fx.organization({ name: `${prefix}-${String(99 - i).padStart(2, '0')}` });
  });
  afterAll(() => t?.close());

  for (const [label, listing] of [
    ['ascending ids', organizationsAsc],
    ['descending ids', organizationsDesc],
    ['another order', organizationsByName],
    ['distinct ids', organizationsDistinct],
  ] as const) {
    it(`gives the rows and count of every page as the ids and then their rows do (${label})`, async () => {
      const db = t.ctx.dbh.db;
      const filtered = listing(db, { name: `${prefix}-%` });
      for (const page of [
        { limit: 10, offset: 0 },
        { limit: 10, offset: 10 },
        { limit: 10, offset: 20 },
        { limit: 10, offset: 30 },
        { limit: 5, offset: 23 },
        { limit: 100, offset: 0 },
        undefined,
      ]) {
        const expected = await twoQueries(t, filtered, page);
        const got = await filtered.rows(names, page);
        // A row read with its page carries the count too (listing_total), which serializers do not look at.
        const plain = got.rows.map(({ id, name }) => ({ id, name }));
        expect({ total: got.total, rows: plain }, JSON.stringify(page)).toEqual(expected);
      }
      expect((await filtered.rows(names, { limit: 10, offset: 20 })).rows.map((r) => r.name)).toHaveLength(3);
      // A listing that matches nothing.
      const none = listing(db, { name: `${prefix}-none-%` });
      expect(await none.rows(names, { limit: 10, offset: 0 })).toEqual({ total: 0, rows: [] });
      expect(await none.rows(names)).toEqual({ total: 0, rows: [] });
    });
  }

  it('reads a page, its count and its rows in one query on PostgreSQL when ordered by id', async () => {
    const db = t.ctx.dbh.db;
    const page = { limit: 10, offset: 10 };
    const one = await queriesDuring(t, () =>
      organizationsDesc(db, { name: `${prefix}-%` }).rows(names, page),
    );
    expect(one.result.total).toBe(23);
    expect(one.queries).toHaveLength(remote ? 1 : 2);
    // Past the last page there are no rows to carry the count: it is read on its own.
    const past = await queriesDuring(t, () =>
      organizationsDesc(db, { name: `${prefix}-%` }).rows(names, { limit: 10, offset: 30 }),
    );
    expect(past.result).toEqual({ total: 23, rows: [] });
    // SQLite: the page with its count finds no row, then the count and the page are read on their own.
    expect(past.queries).toHaveLength(remote ? 2 : 3);
    const other = await queriesDuring(t, () =>
      organizationsByName(db, { name: `${prefix}-%` }).rows(names, page),
    );
    expect(other.result.rows.map((r) => r.name)).toEqual(
      Array.from({ length: 10 }, (_, i) => `${prefix}-${String(89 - i).padStart(2, '0')}`),
    );
    expect(other.queries.length).toBeGreaterThan(1);
  });
});

describe('the round trips of a listing request (read cache off, so that every request reads the database)', () => {
  let t: TestApp;
  let token: string;
  let taskId: number;
  beforeAll(async () => {
    t = await startTestApp({ config: { response_cache_mb: 0 } });
    const a = await t.fx.organization();
    const b = await t.fx.organization();
    const collab = await t.fx.collaboration([a, b]);
    await t.fx.node(a, collab);
    await t.fx.node(b, collab);
    for (let i = 0; i < 12; i++) taskId = (await t.fx.task(collab, [a, b])).id;
    token = await (await t.fx.user(a, { roles: ['Researcher'] })).token();
    // The rule catalogue is read once per database handle, at the first request.
    expect((await t.api('GET', '/task?page=1', { token })).status).toBe(200);
  });

  /** The queries of one request, but the `last_seen` write a caller gets every 5 s. */
  const requestQueries = async (path: string) => {
    const { result, queries } = await queriesDuring(t, () => t.api('GET', path, { token }));
    return { result, queries: queries.filter((q) => !/^update "user" set "last_seen"/.test(q)) };
  };
  afterAll(() => t?.close());

  // The caller's query, then one query for the page, its count and its rows (SQLite: one for the page and its
  // count, one for the rows).
  for (const path of [
    '/task?page=1&per_page=10',
    '/task?page=2&per_page=10',
    '/organization?page=1&per_page=10',
    '/node?page=1&per_page=10',
  ]) {
    it(`GET ${path} takes two round trips on PostgreSQL`, async () => {
      const { result, queries } = await requestQueries(path);
      expect(result.status).toBe(200);
      expect(queries, queries.join('\n')).toHaveLength(remote ? 2 : 3);
    });
  }

  it('GET /result?task_id= (every result of a task, unpaged) takes two round trips on PostgreSQL', async () => {
    const { result, queries } = await requestQueries(`/result?task_id=${taskId}`);
    expect(result.status).toBe(200);
    expect(result.body).toHaveLength(2);
    expect(queries, queries.join('\n')).toHaveLength(remote ? 2 : 3);
  });
});
