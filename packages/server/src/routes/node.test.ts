import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, expectSecondPage, startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const NODE_KEYS = [
  'collaboration',
  'config',
  'id',
  'ip',
  'last_seen',
  'name',
  'organization',
  'status',
  'type',
];
const ids = (r: ApiResponse): number[] => (r.body as { id: number }[]).map((x) => x.id);

const nodeCount = async (): Promise<number> =>
  Number((await t.api('GET', '/node', { token: t.rootToken })).headers['total-count']);

describe('POST /node', () => {
  it('lets root register a node: 201 with the API key once; GET never shows the key or its hash', async () => {
    const org = await t.fx.organization({ name: 'Clinic A' });
    const collab = await t.fx.collaboration([org], { name: 'Study X' });
    const r = await t.api('POST', '/node', {
      token: t.rootToken,
      body: { collaboration_id: collab, organization_id: org },
    });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual([...NODE_KEYS, 'api_key'].sort());
    expect(r.body.api_key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(r.body.type).toBe('node');
    expect(r.body.organization.id).toBe(org);
    expect(r.body.collaboration.id).toBe(collab);
    // The default name is derived from "<org> - <collab> Node", made a valid container name.
    expect(r.body.name).toBe('clinic-a-study-x-node');
    expect(r.body.status).toBeNull();

    const got = await t.api('GET', `/node/${r.body.id}`, { token: t.rootToken });
    expect(got.status).toBe(200);
    expect(Object.keys(got.body).sort()).toEqual(NODE_KEYS);
    expect(JSON.stringify(got.body)).not.toContain(r.body.api_key);
    const stored = await t.ctx.dbh.db
      .selectFrom('node')
      .select('api_key_hash')
      .where('id', '=', r.body.id)
      .executeTakeFirstOrThrow();
    expect(stored.api_key_hash).not.toBe(r.body.api_key);
    expect(JSON.stringify(got.body)).not.toContain(stored.api_key_hash);
    const listed = await t.api('GET', '/node', { token: t.rootToken, query: { collaboration_id: collab } });
    expect(Object.keys(listed.body[0]).sort()).toEqual(NODE_KEYS);

    // The node id is its authenticatable id, and the key logs it in.
    const auth = await t.ctx.dbh.db
      .selectFrom('authenticatable')
      .select('type')
      .where('id', '=', r.body.id)
      .executeTakeFirst();
    expect(auth).toEqual({ type: 'node' });
    const login = await t.api('POST', '/token/node', { body: { api_key: r.body.api_key } });
    expect(login.status).toBe(200);
    expect(login.body.node_url).toBe(`/api/node/${r.body.id}`);
  });

  it('refuses a name that is not a valid container name, saying what a valid name is', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const before = await nodeCount();
    for (const name of ['my node', '-node', '', 'node/1', 'nöde']) {
      const r = await t.api('POST', '/node', {
        token: t.rootToken,
        body: { collaboration_id: collab, organization_id: org, name },
      });
      expect(r.status).toBe(400);
      expect(r.body.msg).toContain('[a-zA-Z0-9][a-zA-Z0-9_.-]*');
      expect(r.body.msg).toContain('not a valid container name');
    }
    expect(await nodeCount()).toBe(before);
    const ok = await t.api('POST', '/node', {
      token: t.rootToken,
      body: { collaboration_id: collab, organization_id: org, name: 'Node_1.a-b' },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.name).toBe('Node_1.a-b');
  });

  it('refuses a second node of an organization in one collaboration with a clear message', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const first = await t.fx.node(org, collab);
    const before = await nodeCount();
    const r = await t.api('POST', '/node', {
      token: t.rootToken,
      body: { collaboration_id: collab, organization_id: org },
    });
    expect(r.status).toBe(400);
    expect(r.body.msg).toBe(
      `Organization ${org} already has a node (id=${first.id}) in collaboration ${collab}; an organization can have at most one node per collaboration.`,
    );
    expect(await nodeCount()).toBe(before);
  });

  it('registers one node of an organization in a collaboration when eight are asked for at the same moment', async () => {
    // Each request checks first and writes after: without a rule in the database, all eight pass the check
    // (docs/api.md, "Nodes"), and the organization's runs would be fetched and run by each of its nodes.
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const before = await nodeCount();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        t.api('POST', '/node', {
          token: t.rootToken,
          body: { collaboration_id: collab, organization_id: org },
        }),
      ),
    );
    const created = answers.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    const id = (created[0]!.body as { id: number }).id;
    for (const r of answers.filter((a) => a.status !== 201)) {
      expect(r.status).toBe(400);
      expect(r.body.msg).toBe(
        `Organization ${org} already has a node (id=${id}) in collaboration ${collab}; an organization can have at most one node per collaboration.`,
      );
    }
    expect(await nodeCount()).toBe(before + 1);
  });

  it('checks the collaboration, membership, permission scope and required fields', async () => {
    const own = await t.fx.organization();
    const other = await t.fx.organization();
    const collab = await t.fx.collaboration([own, other]);
    const outside = await t.fx.collaboration([other]);
    expect(
      (await t.api('POST', '/node', { token: t.rootToken, body: { collaboration_id: 999999 } })).status,
    ).toBe(404);
    const missing = await t.api('POST', '/node', { token: t.rootToken, body: { name: 'x' } });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toHaveProperty('collaboration_id');
    const notMember = await t.api('POST', '/node', {
      token: t.rootToken,
      body: { collaboration_id: outside, organization_id: own },
    });
    expect(notMember.status).toBe(400);
    expect(notMember.body.msg).toContain('not a member');

    const orgAdmin = await t.fx.user(own, { rules: ['node.c_org'] });
    const token = await orgAdmin.token();
    expect(
      (await t.api('POST', '/node', { token, body: { collaboration_id: collab, organization_id: other } }))
        .status,
    ).toBe(401);
    const mine = await t.api('POST', '/node', { token, body: { collaboration_id: collab } });
    expect(mine.status).toBe(201);
    expect(mine.body.organization.id).toBe(own);
    const viewer = await t.fx.user(own, { roles: ['Viewer'] });
    expect(
      (await t.api('POST', '/node', { token: await viewer.token(), body: { collaboration_id: collab } }))
        .status,
    ).toBe(401);
  });
});

describe('GET /node and /node/{id}', () => {
  it('applies the scope and the filters, and paginates', async () => {
    const own = await t.fx.organization();
    const other = await t.fx.organization();
    const c1 = await t.fx.collaboration([own, other]);
    const c2 = await t.fx.collaboration([own]);
    const n1 = await t.fx.node(own, c1, 'filter-one');
    const n2 = await t.fx.node(own, c2, 'filter-two');
    const n3 = await t.fx.node(other, c1, 'filter-three');
    const db = t.ctx.dbh.db;
    await db
      .updateTable('node')
      .set({ status: 'online', ip: '10.76.0.2', last_seen: '2024-03-01T10:00:00.000000' })
      .where('id', '=', n1.id)
      .execute();
    await db
      .updateTable('node')
      .set({ status: 'offline', last_seen: '2024-05-01T10:00:00.000000' })
      .where('id', '=', n2.id)
      .execute();

    const viewer = await t.fx.user(own, { roles: ['Viewer'] });
    const token = await viewer.token();
    expect(ids(await t.api('GET', '/node', { token }))).toEqual([n1.id, n2.id]);
    expect((await t.api('GET', `/node/${n3.id}`, { token })).status).toBe(401);
    expect((await t.api('GET', `/node/${n1.id}`, { token })).body.name).toBe('filter-one');
    expect((await t.api('GET', '/node/999999', { token })).status).toBe(404);
    const root = t.rootToken;
    const q = async (query: Record<string, string | number>) =>
      ids(await t.api('GET', '/node', { token: root, query: { name: 'filter-%', ...query } }));
    expect(await q({})).toEqual([n1.id, n2.id, n3.id]);
    expect(await q({ organization_id: other })).toEqual([n3.id]);
    expect(await q({ collaboration_id: c1 })).toEqual([n1.id, n3.id]);
    expect(await q({ status: 'online' })).toEqual([n1.id]);
    expect(await q({ ip: '10.76.0.2' })).toEqual([n1.id]);
    expect(await q({ last_seen_from: '2024-04-01' })).toEqual([n2.id]);
    expect(await q({ last_seen_till: '2024-04-01T00:00:00' })).toEqual([n1.id]);
    expect(await q({ last_seen_from: '2024-02-01T00:00:00Z', last_seen_till: '2024-06-01' })).toEqual([
      n1.id,
      n2.id,
    ]);
    const bad = await t.api('GET', '/node', { token: root, query: { last_seen_from: 'yesterday' } });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toContain('last_seen_from');
    // A node sees the nodes of its own organization.
    expect(ids(await t.api('GET', '/node', { token: await n3.token() }))).toEqual([n3.id]);
    await expectSecondPage(t, '/node', root, ids(await t.api('GET', '/node', { token: root })));
  });
});

describe('PATCH /node/{id}', () => {
  it('lets root rename and move a node; refuses invalid names and a second node per organization and collaboration', async () => {
    const org = await t.fx.organization();
    const c1 = await t.fx.collaboration([org]);
    const c2 = await t.fx.collaboration([org]);
    const node = await t.fx.node(org, c1);
    const renamed = await t.api('PATCH', `/node/${node.id}`, {
      token: t.rootToken,
      body: { name: 'renamed-node', organization_id: null, collaboration_id: null },
    });
    expect(renamed.status).toBe(200);
    expect(Object.keys(renamed.body).sort()).toEqual(NODE_KEYS);
    expect(renamed.body.name).toBe('renamed-node');
    expect(renamed.body.collaboration.id).toBe(c1);
    const invalid = await t.api('PATCH', `/node/${node.id}`, {
      token: t.rootToken,
      body: { name: 'has space' },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.msg).toContain('[a-zA-Z0-9][a-zA-Z0-9_.-]*');
    const moved = await t.api('PATCH', `/node/${node.id}`, {
      token: t.rootToken,
      body: { collaboration_id: c2 },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.collaboration.id).toBe(c2);
    const other = await t.fx.node(org, c1);
    const clash = await t.api('PATCH', `/node/${other.id}`, {
      token: t.rootToken,
      body: { collaboration_id: c2 },
    });
    expect(clash.status).toBe(400);
    expect(clash.body.msg).toContain('at most one node per collaboration');
    expect((await t.api('GET', `/node/${other.id}`, { token: t.rootToken })).body.collaboration.id).toBe(c1);
    expect(
      (await t.api('PATCH', `/node/${node.id}`, { token: t.rootToken, body: { collaboration_id: 999999 } }))
        .status,
    ).toBe(404);
    expect(
      (await t.api('PATCH', `/node/${node.id}`, { token: t.rootToken, body: { organization_id: 999999 } }))
        .status,
    ).toBe(404);
    expect((await t.api('PATCH', '/node/999999', { token: t.rootToken, body: { name: 'x' } })).status).toBe(
      404,
    );

    // Moving to another organization: needs node.e_glo, and the organization must have no node there yet.
    const org2 = await t.fx.organization();
    await t.api('POST', `/collaboration/${c2}/organization`, { token: t.rootToken, body: { id: org2 } });
    await t.ctx.dbh.db.insertInto('member').values({ collaboration_id: c1, organization_id: org2 }).execute();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    expect(
      (
        await t.api('PATCH', `/node/${other.id}`, {
          token: await admin.token(),
          body: { organization_id: org2 },
        })
      ).status,
    ).toBe(401);
    const rehomed = await t.api('PATCH', `/node/${other.id}`, {
      token: t.rootToken,
      body: { organization_id: org2 },
    });
    expect(rehomed.status).toBe(200);
    expect(rehomed.body.organization.id).toBe(org2);
  });

  it('lets a node set and clear its VPN IP; refuses nodes of another organization', async () => {
    const own = await t.fx.organization();
    const other = await t.fx.organization();
    const collab = await t.fx.collaboration([own, other]);
    const node = await t.fx.node(own, collab);
    const foreign = await t.fx.node(other, collab);
    const token = await node.token();
    const set = await t.api('PATCH', `/node/${node.id}`, { token, body: { ip: '10.76.0.5' } });
    expect(set.status).toBe(200);
    expect(set.body.ip).toBe('10.76.0.5');
    expect((await t.api('PATCH', `/node/${node.id}`, { token, body: { ip: null } })).body.ip).toBe(
      '10.76.0.5',
    );
    expect((await t.api('PATCH', `/node/${node.id}`, { token, body: { clear_ip: 'False' } })).body.ip).toBe(
      '10.76.0.5',
    );
    expect(
      (await t.api('PATCH', `/node/${node.id}`, { token, body: { clear_ip: true } })).body.ip,
    ).toBeNull();
    expect((await t.api('PATCH', `/node/${foreign.id}`, { token, body: { ip: '10.76.0.9' } })).status).toBe(
      401,
    );
  });
});

describe('DELETE /node/{id}', () => {
  it('lets root delete a node (its key stops working) and refuses another organization without node.d_glo', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const node = await t.fx.node(org, collab);
    const other = await t.fx.node(await t.fx.organization(), null);
    const admin = await t.fx.user(org, { rules: ['node.d_org'] });
    expect((await t.api('DELETE', `/node/${other.id}`, { token: await admin.token() })).status).toBe(401);
    const r = await t.api('DELETE', `/node/${node.id}`, { token: t.rootToken });
    expect(r.status).toBe(200);
    expect(r.body.msg).toContain(String(node.id));
    expect((await t.api('GET', `/node/${node.id}`, { token: t.rootToken })).status).toBe(404);
    expect((await t.api('POST', '/token/node', { body: { api_key: node.apiKey } })).status).toBe(401);
    expect((await t.api('DELETE', `/node/${node.id}`, { token: t.rootToken })).status).toBe(404);
    // The organization may register a node in that collaboration again.
    expect(
      (
        await t.api('POST', '/node', {
          token: t.rootToken,
          body: { collaboration_id: collab, organization_id: org },
        })
      ).status,
    ).toBe(201);
    const own = await t.fx.node(org, null);
    expect((await t.api('DELETE', `/node/${own.id}`, { token: await admin.token() })).status).toBe(200);
  });
});

describe('GET /node/{id}/task', () => {
  it("lists the tasks of the node's collaboration, newest first, with results on request, paginated", async () => {
    const a = await t.fx.organization();
    const b = await t.fx.organization();
    const collab = await t.fx.collaboration([a, b]);
    const node = await t.fx.node(b, collab);
    const tasks: number[] = [];
    for (let i = 0; i < 5; i++) tasks.push((await t.fx.task(collab, [a, b])).id);
    await t.fx.task(await t.fx.collaboration([a]), [a]);
    tasks.reverse();
    const viewer = await t.fx.user(a, { roles: ['Viewer'] });
    const token = await viewer.token();
    const r = await t.api('GET', `/node/${node.id}/task`, { token });
    expect(r.status).toBe(200);
    expect(ids(r)).toEqual(tasks);
    // The same task objects as GET /collaboration/{id}/task.
    const byCollab = await t.api('GET', `/collaboration/${collab}/task`, { token });
    expect(r.body[0]).toEqual(byCollab.body.find((x: { id: number }) => x.id === tasks[0]));
    const full = await t.api('GET', `/node/${node.id}/task`, { token, query: { include: 'results' } });
    expect(full.body[0].results.map((x: { organization: number }) => x.organization)).toEqual([a, b]);
    expect(full.body[0].results[1].node).toMatchObject({ id: node.id });
    await expectSecondPage(t, `/node/${node.id}/task`, token, tasks);
    // The node itself may read it.
    expect(ids(await t.api('GET', `/node/${node.id}/task`, { token: await node.token() }))).toEqual(tasks);
    // state=open: only tasks with unfinished results.
    await t.ctx.dbh.db
      .updateTable('result')
      .set({ finished_at: '2024-01-01T00:00:00.000000', status: 'completed' })
      .where('task_id', '=', tasks[0] as number)
      .execute();
    expect(ids(await t.api('GET', `/node/${node.id}/task`, { token, query: { state: 'open' } }))).toEqual(
      tasks.slice(1),
    );
    const stranger = await t.fx.user(await t.fx.organization(), { roles: ['Viewer'] });
    expect((await t.api('GET', `/node/${node.id}/task`, { token: await stranger.token() })).status).toBe(401);
    expect((await t.api('GET', '/node/999999/task', { token })).status).toBe(404);
  });
});

describe('POST /recover/node', () => {
  it('regenerates the API key: the new one works, the old one not, and only a hash is stored', async () => {
    const org = await t.fx.organization();
    const node = await t.fx.node(org, await t.fx.collaboration([org]));
    const admin = await t.fx.user(org, { rules: ['node.e_org'] });
    const r = await t.api('POST', '/recover/node', { token: await admin.token(), body: { id: node.id } });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['api_key']);
    expect(r.body.api_key).not.toBe(node.apiKey);
    const row = await t.ctx.dbh.db
      .selectFrom('node')
      .select('api_key_hash')
      .where('id', '=', node.id)
      .executeTakeFirstOrThrow();
    expect(row.api_key_hash).not.toContain(r.body.api_key);
    expect((await t.api('POST', '/token/node', { body: { api_key: node.apiKey } })).status).toBe(401);
    expect((await t.api('POST', '/token/node', { body: { api_key: r.body.api_key } })).status).toBe(200);
  });

  it('refuses other organizations without node.e_glo (401), unknown nodes (404) and a missing id (400)', async () => {
    const org = await t.fx.organization();
    const other = await t.fx.node(await t.fx.organization(), null);
    const admin = await t.fx.user(org, { rules: ['node.e_org'] });
    const token = await admin.token();
    expect((await t.api('POST', '/recover/node', { token, body: { id: other.id } })).status).toBe(401);
    expect((await t.api('POST', '/recover/node', { token, body: { id: 999999 } })).status).toBe(404);
    const missing = await t.api('POST', '/recover/node', { token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toContain('id');
    expect(
      (await t.api('POST', '/recover/node', { token: t.rootToken, body: { id: other.id } })).status,
    ).toBe(200);
    const viewer = await t.fx.user(org, { roles: ['Viewer'] });
    expect(
      (await t.api('POST', '/recover/node', { token: await viewer.token(), body: { id: other.id } })).status,
    ).toBe(401);
  });
});
