import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

// Which linked algorithm stores a user learns of (docs/store.md#running-a-store): those for every collaboration
// and those linked to a collaboration they may view. A store linked only to another collaboration is, to them,
// not there: not listed, not readable by id, not usable in a task, on both API surfaces.

let t: TestApp;
let collabAB: number;
let collabA: number;
let collabC: number;
let researcher: string;
let noRules: string;
const store: Record<'everyone' | 'ab' | 'c', number> = { everyone: 0, ab: 0, c: 0 };
let hostile: Server;
let hostileUrl = '';

const names = (body: unknown): string[] =>
  ((Array.isArray(body) ? body : (body as { data: unknown[] }).data) as { name: string }[]).map(
    (s) => s.name,
  );

const link = async (name: string, collaboration_id?: number): Promise<number> => {
  const r = await t.api('POST', '/algorithmstore', {
    token: t.rootToken,
    // Nothing answers at port 9: a store read before its visibility is checked would be a 503 naming it.
    body: { name, url: 'http://127.0.0.1:9/api', ...(collaboration_id ? { collaboration_id } : {}) },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as number;
};

const v4 = async (path: string, token: string) => {
  const res = await t.app.inject({ url: `/v4/api${path}`, headers: { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, body: JSON.parse(res.body) as unknown, text: res.body };
};

beforeAll(async () => {
  t = await startTestApp();
  const [orgA, orgB, orgC] = [
    await t.fx.organization(),
    await t.fx.organization(),
    await t.fx.organization(),
  ];
  collabAB = await t.fx.collaboration([orgA, orgB]);
  collabA = await t.fx.collaboration([orgA]);
  collabC = await t.fx.collaboration([orgC]);
  researcher = await (await t.fx.user(orgA, { roles: ['Researcher'] })).token();
  noRules = await (await t.fx.user(orgA, { rules: [] })).token();
  store.everyone = await link('for everyone');
  store.ab = await link('for AB', collabAB);
  store.c = await link('for C only', collabC);
  // A store that answers garbage: an "algorithm" whose functions are not functions.
  hostile = createServer((_, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ id: 1, name: 'x', image: 'reg.example.org/x:1', functions: [null, 7] }));
  });
  await new Promise<void>((done) => hostile.listen(0, '127.0.0.1', done));
  hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/api`;
});
afterAll(async () => {
  await new Promise((done) => hostile?.close(done));
  await t.close();
});

describe('GET /algorithmstore', () => {
  it('lists to a user the stores for every collaboration and those of the collaborations they may view', async () => {
    const mine = await t.api('GET', '/algorithmstore', { token: researcher });
    expect(mine.status).toBe(200);
    expect(names(mine.body)).toEqual(['this server', 'for everyone', 'for AB']);
    const all = await t.api('GET', '/algorithmstore', { token: t.rootToken });
    expect(names(all.body)).toEqual(['this server', 'for everyone', 'for AB', 'for C only']);
    // Without any collaboration view rule, only the stores every collaboration uses.
    const none = await t.api('GET', '/algorithmstore', { token: noRules });
    expect(names(none.body)).toEqual(['this server', 'for everyone']);
  });

  it('with collaboration_id, lists the stores that collaboration may use', async () => {
    const ab = await t.api('GET', '/algorithmstore', {
      token: researcher,
      query: { collaboration_id: collabAB },
    });
    expect(names(ab.body)).toEqual(['this server', 'for everyone', 'for AB']);
    const a = await t.api('GET', '/algorithmstore', {
      token: researcher,
      query: { collaboration_id: collabA },
    });
    expect(names(a.body)).toEqual(['this server', 'for everyone']);
    const c = await t.api('GET', '/algorithmstore', {
      token: t.rootToken,
      query: { collaboration_id: collabC },
    });
    expect(names(c.body)).toEqual(['this server', 'for everyone', 'for C only']);
  });

  it('refuses a collaboration the user may not view, and names one that does not exist', async () => {
    const other = await t.api('GET', '/algorithmstore', {
      token: researcher,
      query: { collaboration_id: collabC },
    });
    expect(other.status).toBe(401);
    expect(other.body.msg).toBe(
      `You lack the permission to view collaboration ${collabC}: your organization is not a member of it.`,
    );
    expect(JSON.stringify(other.body)).not.toContain('for C only');
    const missing = await t.api('GET', '/algorithmstore', {
      token: researcher,
      query: { collaboration_id: 987654 },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.msg).toBe('Collaboration with id=987654 not found');
  });

  it('lists the same stores on the vantage6 4.x surface', async () => {
    const mine = await v4('/algorithmstore', researcher);
    expect(mine.status).toBe(200);
    expect(names(mine.body)).toEqual(['this server', 'for everyone', 'for AB']);
    const scoped = await v4(`/algorithmstore?collaboration_id=${collabA}`, researcher);
    expect(names(scoped.body)).toEqual(['this server', 'for everyone']);
    const other = await v4(`/algorithmstore?collaboration_id=${collabC}`, researcher);
    expect(other.status).toBe(401);
    expect(other.text).not.toContain('for C only');
  });
});

describe('a store linked only to a collaboration the user may not view', () => {
  it('is not found by id, as a store that does not exist, on both surfaces', async () => {
    const hidden = await t.api('GET', `/algorithmstore/${store.c}`, { token: researcher });
    expect(hidden.status).toBe(404);
    expect(hidden.body.msg).toBe(`Algorithm store with id=${store.c} not found`);
    const shown = await t.api('GET', `/algorithmstore/${store.ab}`, { token: researcher });
    expect(shown.body).toMatchObject({ name: 'for AB', collaboration_id: collabAB });
    expect((await t.api('GET', `/algorithmstore/${store.c}`, { token: t.rootToken })).body.name).toBe(
      'for C only',
    );
    const hidden4 = await v4(`/algorithmstore/${store.c}`, researcher);
    expect(hidden4.status).toBe(404);
    expect(hidden4.text).not.toContain('for C only');
  });

  it('is not read through the server: its algorithms are a 404 that does not name it', async () => {
    for (const path of [`/algorithmstore/${store.c}/algorithm`, `/algorithmstore/${store.c}/algorithm/1`]) {
      const r = await t.api('GET', path, { token: researcher });
      expect(r.status, path).toBe(404);
      expect(r.body.msg).toBe(`Algorithm store with id=${store.c} not found`);
    }
    // The visible store of the same address is asked, and cannot be reached.
    const asked = await t.api('GET', `/algorithmstore/${store.ab}/algorithm`, { token: researcher });
    expect(asked.status).toBe(503);
    expect(asked.body.msg).toContain(
      "The algorithm store 'for AB' (http://127.0.0.1:9/api) cannot be reached",
    );
  });

  it('is a store that does not exist to GET /task?store_id=', async () => {
    const hidden = await t.api('GET', '/task', { token: researcher, query: { store_id: store.c } });
    expect(hidden.status).toBe(400);
    expect(hidden.body.msg).toBe(`Algorithm store ${store.c} does not exist.`);
    expect((await t.api('GET', '/task', { token: researcher, query: { store_id: store.ab } })).status).toBe(
      200,
    );
  });

  it('cannot be named by a task', async () => {
    const r = await t.api('POST', '/task', {
      token: researcher,
      body: {
        collaboration_id: collabAB,
        organizations: [{ id: 1, input: '' }],
        name: 'hidden store',
        store_algorithm_id: 1,
        algorithm_store_id: store.c,
      },
    });
    expect(r.status).toBe(404);
    expect(r.body.msg).toBe(`Algorithm store with id=${store.c} not found`);
  });
});

describe('a task from a linked store', () => {
  it('is refused in a collaboration the store is not linked to, naming the collaboration it serves', async () => {
    const r = await t.api('POST', '/task', {
      token: researcher,
      body: {
        collaboration_id: collabA,
        organizations: [{ id: 1, input: '' }],
        name: 'wrong collaboration',
        store_algorithm_id: 1,
        algorithm_store_id: store.ab,
      },
    });
    expect(r.status).toBe(400);
    expect(r.body.msg).toBe(
      `The algorithm store 'for AB' is linked to collaboration ${collabAB} only, not to collaboration ${collabA}: choose an algorithm of a store this collaboration uses (GET /algorithmstore?collaboration_id=${collabA}).`,
    );
  });

  it('is refused with a clear 503, not a failure, when the store describes functions that are not functions', async () => {
    const linked = await t.api('POST', '/algorithmstore', {
      token: t.rootToken,
      body: { name: 'garbage', url: hostileUrl },
    });
    const read = await t.api('GET', `/algorithmstore/${linked.body.id}/algorithm/1`, { token: researcher });
    expect(read.status).toBe(503);
    expect(read.body).toMatchObject({
      code: 'store_unreachable',
      msg: `The algorithm store 'garbage' (${hostileUrl}) did not describe algorithm 1.`,
    });
    const made = await t.api('POST', '/task', {
      token: researcher,
      body: {
        collaboration_id: collabAB,
        organizations: [{ id: 1, input: '' }],
        name: 'garbage store',
        store_algorithm_id: 1,
        algorithm_store_id: linked.body.id,
      },
    });
    expect(made.status).toBe(503);
    expect(made.body.msg).toBe(
      `The algorithm store 'garbage' (${hostileUrl}) did not describe algorithm 1; the task was not created.`,
    );
  });
});

describe('POST /algorithmstore', () => {
  it('refuses a collaboration that does not exist', async () => {
    const r = await t.api('POST', '/algorithmstore', {
      token: t.rootToken,
      body: { name: 'nowhere', url: 'http://127.0.0.1:9/api', collaboration_id: 987654 },
    });
    expect(r.status).toBe(404);
    expect(r.body.msg).toBe('Collaboration with id=987654 not found');
  });
});
