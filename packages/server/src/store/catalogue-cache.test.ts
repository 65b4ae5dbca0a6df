import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { averageDescription, digestOf, startTestApp, storeApi, until, type TestApp } from '@federa/testing';
import { CatalogueCache } from './catalogue-cache.js';

// The store keeps its listings and policies in memory while the catalogue is unchanged: every change through the
// API is seen by the next read; one made straight in the database (another instance, a shell) by the next read on
// SQLite, and once its notification arrives on PostgreSQL (scaling/store-catalogue-instances.test.ts).

/** Reads `read` until `ok` holds: at once on SQLite, within a notification's delivery on PostgreSQL. */
const seen = <T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> =>
  until('the change listed', read, ok, 5_000, 10);

let t: TestApp;
let reviewerToken: string;
let reviewerId: number;

const names = async (query = ''): Promise<string[]> =>
  (await storeApi(t, 'GET', `/algorithm${query}`)).body.data.map((a: { name: string }) => a.name);

async function approved(name: string, seed: number): Promise<number> {
  const made = await storeApi(t, 'POST', '/algorithm', {
    token: t.rootToken,
    body: averageDescription(`reg.example.org/${name}:1@${digestOf(seed)}`, name),
  });
  const review = await storeApi(t, 'POST', '/review', {
    token: t.rootToken,
    body: { algorithm_id: made.body.id, reviewer_id: reviewerId },
  });
  await storeApi(t, 'POST', `/review/${review.body.id}/approve`, { token: reviewerToken });
  return made.body.id;
}

beforeAll(async () => {
  t = await startTestApp();
  await storeApi(t, 'PATCH', '/policy', {
    token: t.rootToken,
    body: { min_reviewers: 1, min_reviewing_organizations: 1 },
  });
  const user = await t.fx.user(await t.fx.organization());
  reviewerToken = await user.token();
  reviewerId = (
    await storeApi(t, 'POST', '/user', {
      token: t.rootToken,
      body: { username: user.username, roles: ['reviewer'] },
    })
  ).body.id;
});
afterAll(async () => t.close());

describe('the kept catalogue', () => {
  it('shows an algorithm approved after a listing was kept', async () => {
    await approved('first', 1);
    expect(await names()).toEqual(['first']);
    expect(await names()).toEqual(['first']);
    await approved('second', 2);
    expect(await names()).toEqual(['second', 'first']);
  });

  it('shows a change made straight in the database, and the total with it', async () => {
    expect(await names('?search=renamed')).toEqual([]);
    await t.ctx.dbh.db
      .updateTable('store_algorithm')
      .set({ name: 'renamed' })
      .where('name', '=', 'first')
      .execute();
    expect(
      await seen(
        () => names('?search=renamed'),
        (n) => n.length > 0,
      ),
    ).toEqual(['renamed']);
    await t.ctx.dbh.db
      .updateTable('store_function')
      .set({ display_name: 'Mean, renamed' })
      .where('name', '=', 'central_average')
      .execute();
    const listed = await seen(
      () => storeApi(t, 'GET', '/algorithm'),
      (r) => r.body.data[0].functions[0].display_name === 'Mean, renamed',
    );
    expect(listed.body.data[0].functions[0].display_name).toBe('Mean, renamed');
    expect(listed.headers['total-count']).toBe('2');
  });

  it('applies a policy change at the next read', async () => {
    expect((await storeApi(t, 'GET', '/algorithm')).status).toBe(200);
    await storeApi(t, 'PATCH', '/policy', { token: t.rootToken, body: { algorithm_view: 'authenticated' } });
    const refused = await storeApi(t, 'GET', '/algorithm');
    expect(refused.status).toBe(401);
    await storeApi(t, 'PATCH', '/policy', { token: t.rootToken, body: { algorithm_view: 'public' } });
    expect((await storeApi(t, 'GET', '/algorithm')).status).toBe(200);
  });

  it("gives a reviewer's new role at the next read", async () => {
    const user = await t.fx.user(await t.fx.organization());
    const token = await user.token();
    const pending = await storeApi(t, 'POST', '/algorithm', {
      token: t.rootToken,
      body: averageDescription('reg.example.org/pending:1', 'pending'),
    });
    const asViewer = await storeApi(t, 'GET', `/algorithm/${pending.body.id}`, { token });
    expect(asViewer.status).toBe(404);
    const entry = await storeApi(t, 'GET', '/user/me', { token });
    await storeApi(t, 'PATCH', `/user/${entry.body.id}`, {
      token: t.rootToken,
      body: { roles: ['reviewer'] },
    });
    expect((await storeApi(t, 'GET', `/algorithm/${pending.body.id}`, { token })).status).toBe(200);
  });
});

describe('the bound of the kept pages', () => {
  it('keeps no more bytes than its limit, whatever URLs a caller chooses', async () => {
    let current = 'v1';
    const cache = new CatalogueCache(undefined, () => Promise.resolve(current), { maxBytes: 100 });
    const request = {};
    const version = await cache.version(request);
    cache.keepPage(version, '/a', { body: 'x'.repeat(60), total: 1 });
    expect(cache.page(version, '/a')?.total).toBe(1);
    cache.keepPage(version, '/b', { body: 'y'.repeat(60), total: 2 });
    expect(cache.page(version, '/a')).toBeUndefined();
    expect(cache.page(version, '/b')?.total).toBe(2);
    cache.keepPage(version, '/huge', { body: 'z'.repeat(101), total: 3 });
    expect(cache.page(version, '/huge')).toBeUndefined();
    // A request that reads another version is given nothing kept under the first.
    current = 'v2';
    expect(cache.page(await cache.version({}), '/b')).toBeUndefined();
    expect(cache.page(version, '/b')).toBeUndefined();
  });
});
