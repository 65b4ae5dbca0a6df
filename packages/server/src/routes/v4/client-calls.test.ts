/**
 * Calls the vantage6 4.14 client makes that its schemas do not show, found by running the client against this
 * surface (scripts/probe-v4-client.py): `client.task.list(user_created=…)` sends `is_user_created`, and
 * `client.store.set(id)` reads the store and then calls `<url>/api/…`, so a store's `url` is its address without
 * the API path, and the store inside this server must be readable by its id 0. Runs on the dialect FEDERA_TEST_DB
 * names (SQLite or PostgreSQL).
 */
import { describe, expect, it } from 'vitest';
import type { TestApp, V4Call, V4World } from '@federa/testing';
import { useV4World } from '@federa/testing/hooks';

let t: TestApp;
let w: V4World['w'];
let v4: V4Call;
useV4World((world) => ({ t, w, v4 } = world), {
  caller: { prefix: '', headers: { host: 'federa.example.org:7443' } },
});
const call = (method: string, url: string, body?: unknown) => v4(method, url, { body });

const ids = (listing: { data: { id: number }[] } | { id: number }[]) =>
  (Array.isArray(listing) ? listing : listing.data).map((i) => i.id);

describe('task listing: is_user_created, as client.task.list(user_created=…) sends it', () => {
  it('1 gives the tasks users made, 0 the sub-tasks their algorithms made, and both count right', async () => {
    const top = await t.fx.task(w.collab, [w.orgA], { name: 'made-by-check' });
    const sub = await t.fx.task(w.collab, [w.orgB], { name: 'made-by-check', parentId: top.id });
    const base = `/v4/api/task?collaboration_id=${w.collab}&name=made-by-check`;
    const users = await call('GET', `${base}&is_user_created=1`);
    expect(users.status, JSON.stringify(users.body)).toBe(200);
    expect(ids(users.body)).toEqual([top.id]);
    const algorithms = await call('GET', `${base}&is_user_created=0`);
    expect(ids(algorithms.body)).toEqual([sub.id]);
    expect(ids((await call('GET', base)).body)).toEqual([sub.id, top.id]);
    // The 3.x surface has the same filter.
    const at3 = await call(
      'GET',
      `/api/task?collaboration_id=${w.collab}&name=made-by-check&is_user_created=1&page=1`,
    );
    expect(ids(at3.body)).toEqual([top.id]);
  });

  it('refuses a value that is not a number, naming the parameter', async () => {
    const r = await call('GET', '/v4/api/task?is_user_created=yes');
    expect(r.status).toBe(400);
    expect(r.body.msg).toContain('is_user_created');
  });
});

describe('user listing: last_seen as a date, as the 4.x client documents it (yyyy-mm-dd)', () => {
  it('takes a date or a date-time, and refuses anything else naming the parameter', async () => {
    const since = await call('GET', '/v4/api/user?username=root&last_seen_from=2000-01-01');
    expect(since.status, JSON.stringify(since.body)).toBe(200);
    expect(since.body.data.map((u: { username: string }) => u.username)).toEqual(['root']);
    const before = await call('GET', '/v4/api/user?username=root&last_seen_till=2000-01-01');
    expect(before.body.data).toEqual([]);
    const bad = await call('GET', '/v4/api/user?last_seen_from=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toBe(
      "query parameter 'last_seen_from' must be an ISO-8601 date or date-time, e.g. 2024-01-31T12:00:00",
    );
  });
});

describe('algorithm stores, as client.store.set(id) reads them', () => {
  it('the store inside this server is id 0, at the address the request came to, without the API path', async () => {
    const own = await call('GET', '/v4/api/algorithmstore/0');
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body).toEqual({
      id: 0,
      name: 'this server',
      url: 'http://federa.example.org:7443/store',
      collaborations: null,
    });
    const listed = await call('GET', '/v4/api/algorithmstore');
    expect(listed.body.data[0]).toEqual(own.body);
    // The 3.x surface keeps the path of the store's API, as Federa's clients read it.
    expect((await call('GET', '/api/algorithmstore/0')).body.url).toBe('/store/api');
    // The client then calls <url>/api/...: the store's own API answers there.
    const algorithms = await call('GET', '/store/api/algorithm');
    expect(algorithms.status).toBe(200);
  });

  it('a store linked by its address is kept as the URL of its API, and shown to 4.x without it', async () => {
    const linked = await call('POST', '/v4/api/algorithmstore', {
      algorithm_store_url: 'https://store.example.org/',
      name: 'by-address',
    });
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    expect(linked.body.url).toBe('https://store.example.org');
    const at3 = await call('GET', `/api/algorithmstore/${linked.body.id}`);
    expect(at3.body.url).toBe('https://store.example.org/api');
    const at4 = await call('GET', `/v4/api/algorithmstore/${linked.body.id}`);
    expect(at4.body.url).toBe('https://store.example.org');
  });

  it('lists stores by name and by address (LIKE patterns), as client.store.list(name=…, url=…) sends them', async () => {
    for (const [name, address] of [
      ['filter-one', 'https://one.example.org'],
      ['filter-two', 'https://two.example.org'],
    ])
      await call('POST', '/v4/api/algorithmstore', { algorithm_store_url: address, name });
    const names = (r: { body: { data: { name: string }[] } }) => r.body.data.map((s) => s.name);
    expect(names(await call('GET', '/v4/api/algorithmstore?name=filter-%'))).toEqual([
      'filter-one',
      'filter-two',
    ]);
    expect(names(await call('GET', '/v4/api/algorithmstore?url=https://two.example.org'))).toEqual([
      'filter-two',
    ]);
    expect(names(await call('GET', '/v4/api/algorithmstore?name=this%'))).toEqual(['this server']);
    expect(names(await call('GET', '/v4/api/algorithmstore?name=nothing'))).toEqual([]);
  });

  it('a store that is not there is a 404 naming it; the store inside this server cannot be unlinked', async () => {
    const missing = await call('GET', '/v4/api/algorithmstore/987654');
    expect(missing.status).toBe(404);
    expect(missing.body.msg).toContain('987654');
    expect((await call('DELETE', '/v4/api/algorithmstore/0')).status).toBe(400);
    expect((await call('GET', '/v4/api/algorithmstore/-1')).status).toBe(400);
  });
});
