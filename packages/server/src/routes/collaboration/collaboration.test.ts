/** POST, GET, PATCH and DELETE /collaboration: who may, what is stored, and the answer's shape. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, expectSecondPage, startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const ids = (r: ApiResponse): number[] => (r.body as { id: number }[]).map((x) => x.id);

describe('POST /collaboration', () => {
  it('creates a collaboration (200), drops unknown organizations and reads encrypted as only true/1', async () => {
    const a = await t.fx.organization();
    const b = await t.fx.organization();
    const r = await t.api('POST', '/collaboration', {
      token: t.rootToken,
      body: { name: 'Study Alpha', organization_ids: [a, b, 999999] },
    });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual([
      'encrypted',
      'id',
      'name',
      'nodes',
      'organizations',
      'tasks',
    ]);
    expect(r.body.name).toBe('Study Alpha');
    expect(r.body.encrypted).toBe(false);
    expect(r.body.organizations.map((o: { id: number }) => o.id)).toEqual([a, b]);
    expect(r.body.nodes).toBeNull();
    const one = await t.api('POST', '/collaboration', {
      token: t.rootToken,
      body: { name: 'Study One', organization_ids: [a], encrypted: 1 },
    });
    expect(one.body.encrypted).toBe(true);
    const yes = await t.api('POST', '/collaboration', {
      token: t.rootToken,
      body: { name: 'Study True', organization_ids: [], encrypted: true },
    });
    expect(yes.body.encrypted).toBe(true);
    expect(yes.body.organizations).toBeNull();
    const two = await t.api('POST', '/collaboration', {
      token: t.rootToken,
      body: { name: 'Study Two', organization_ids: [], encrypted: 2 },
    });
    expect(two.body.encrypted).toBe(false);
    const bad = await t.api('POST', '/collaboration', {
      token: t.rootToken,
      body: { name: 'Study Bad', organization_ids: [], encrypted: 'yes' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toContain('encrypted');
  });

  it('refuses an existing name with 400 and a clear message, creating nothing', async () => {
    const org = await t.fx.organization();
    await t.fx.collaboration([org], { name: 'Taken Name' });
    const before = await t.api('GET', '/collaboration', { token: t.rootToken });
    const r = await t.api('POST', '/collaboration', {
      token: t.rootToken,
      body: { name: 'Taken Name', organization_ids: [org] },
    });
    expect(r.status).toBe(400);
    expect(r.body.msg).toBe(
      "A collaboration named 'Taken Name' already exists; collaboration names must be unique.",
    );
    const after = await t.api('GET', '/collaboration', { token: t.rootToken });
    expect(after.headers['total-count']).toBe(before.headers['total-count']);
  });

  it('needs collaboration.c_glo (401) and names missing fields (400)', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Collaboration Admin'] });
    expect(
      (
        await t.api('POST', '/collaboration', {
          token: await admin.token(),
          body: { name: 'No Right', organization_ids: [org] },
        })
      ).status,
    ).toBe(401);
    const noName = await t.api('POST', '/collaboration', {
      token: t.rootToken,
      body: { organization_ids: [org] },
    });
    expect(noName.status).toBe(400);
    expect(noName.body.message).toHaveProperty('name');
    const noOrgs = await t.api('POST', '/collaboration', { token: t.rootToken, body: { name: 'No Orgs' } });
    expect(noOrgs.status).toBe(400);
    expect(noOrgs.body.msg).toContain('organization_ids');
  });
});

describe('GET /collaboration', () => {
  it('lists all with v_glo, own with v_org, filters, and paginates', async () => {
    const own = await t.fx.organization();
    const other = await t.fx.organization();
    const c1 = await t.fx.collaboration([own], { name: 'List Alpha', encrypted: true });
    const c2 = await t.fx.collaboration([own, other], { name: 'List Beta' });
    const c3 = await t.fx.collaboration([other], { name: 'List Gamma' });
    const viewer = await t.fx.user(own, { roles: ['Viewer'] });
    const token = await viewer.token();
    expect(ids(await t.api('GET', '/collaboration', { token }))).toEqual([c1, c2]);
    expect(ids(await t.api('GET', '/collaboration', { token, query: { organization_id: own } }))).toEqual([
      c1,
      c2,
    ]);
    expect((await t.api('GET', '/collaboration', { token, query: { organization_id: other } })).status).toBe(
      401,
    );
    const root = t.rootToken;
    expect(
      ids(await t.api('GET', '/collaboration', { token: root, query: { organization_id: other } })),
    ).toEqual([c2, c3]);
    expect(ids(await t.api('GET', '/collaboration', { token: root, query: { name: 'List%' } }))).toEqual([
      c1,
      c2,
      c3,
    ]);
    expect(
      ids(await t.api('GET', '/collaboration', { token: root, query: { name: 'List%', encrypted: 'true' } })),
    ).toEqual([c1]);
    expect(
      ids(await t.api('GET', '/collaboration', { token: root, query: { name: 'List%', encrypted: '0' } })),
    ).toEqual([c2, c3]);
    const bad = await t.api('GET', '/collaboration', { token: root, query: { encrypted: 'maybe' } });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toContain('encrypted');
    const nobody = await t.fx.user(own, { rules: ['user.v_org'] });
    expect((await t.api('GET', '/collaboration', { token: await nobody.token() })).status).toBe(401);
    await expectSecondPage(
      t,
      '/collaboration',
      root,
      ids(await t.api('GET', '/collaboration', { token: root })),
    );
  });
});

describe('GET, PATCH and DELETE /collaboration/{id}', () => {
  it('shows a collaboration to members (users and nodes) and refuses others', async () => {
    const own = await t.fx.organization();
    const other = await t.fx.organization();
    const mine = await t.fx.collaboration([own]);
    const theirs = await t.fx.collaboration([other]);
    const viewer = await t.fx.user(own, { roles: ['Viewer'] });
    const token = await viewer.token();
    expect((await t.api('GET', `/collaboration/${mine}`, { token })).body.id).toBe(mine);
    expect((await t.api('GET', `/collaboration/${theirs}`, { token })).status).toBe(401);
    expect((await t.api('GET', '/collaboration/999999', { token })).status).toBe(404);
    const node = await t.fx.node(own, mine);
    expect((await t.api('GET', `/collaboration/${mine}`, { token: await node.token() })).status).toBe(200);
    expect((await t.api('GET', `/collaboration/${theirs}`, { token: await node.token() })).status).toBe(401);
  });

  it('answers GET /collaboration/{id} with the very JSON of its item in GET /collaboration', async () => {
    const org = await t.fx.organization();
    const partner = await t.fx.organization();
    const bare = await t.fx.collaboration([], { name: 'bare "quoted" \\ naïve ✓' });
    const full = await t.fx.collaboration([org, partner], { encrypted: true });
    await t.fx.node(org, full);
    for (let i = 0; i < 30; i++) await t.fx.task(full, [org]);
    for (const id of [bare, full]) {
      const one = await t.api('GET', `/collaboration/${id}`, { token: t.rootToken });
      expect(one.status).toBe(200);
      expect(one.headers['content-type']).toBe('application/json; charset=utf-8');
      const listed = await t.api('GET', '/collaboration', { token: t.rootToken });
      const item = (listed.body as { id: number }[]).find((c) => c.id === id);
      expect(one.body).toEqual(item);
      expect(one.raw.body).toBe(JSON.stringify(item));
    }
    const empty = (await t.api('GET', `/collaboration/${bare}`, { token: t.rootToken })).body;
    expect(empty).toMatchObject({ name: 'bare "quoted" \\ naïve ✓', encrypted: false });
    expect([empty.organizations, empty.nodes, empty.tasks]).toEqual([null, null, null]);
    const withTasks = (await t.api('GET', `/collaboration/${full}`, { token: t.rootToken })).body;
    expect(withTasks.tasks).toHaveLength(30);
    expect(withTasks.tasks[0]).toEqual({
      id: withTasks.tasks[0].id,
      link: `/api/task/${withTasks.tasks[0].id}`,
      methods: ['GET', 'DELETE'],
    });
  });

  it('updates name, encrypted and the member list; refuses a name in use (400, nothing changed)', async () => {
    const a = await t.fx.organization();
    const b = await t.fx.organization();
    const c = await t.fx.collaboration([a], { name: 'Patch Me' });
    await t.fx.collaboration([a], { name: 'Patch Other' });
    const r = await t.api('PATCH', `/collaboration/${c}`, {
      token: t.rootToken,
      body: { name: 'Patched', encrypted: true, organization_ids: [b, 999999] },
    });
    expect(r.status).toBe(200);
    expect(r.body.name).toBe('Patched');
    expect(r.body.encrypted).toBe(true);
    expect(r.body.organizations.map((o: { id: number }) => o.id)).toEqual([b]);
    const keep = await t.api('PATCH', `/collaboration/${c}`, {
      token: t.rootToken,
      body: { name: null, encrypted: null, organization_ids: null },
    });
    expect(keep.body).toEqual(r.body);
    const same = await t.api('PATCH', `/collaboration/${c}`, {
      token: t.rootToken,
      body: { name: 'Patched' },
    });
    expect(same.status).toBe(200);
    const clash = await t.api('PATCH', `/collaboration/${c}`, {
      token: t.rootToken,
      body: { name: 'Patch Other', encrypted: false },
    });
    expect(clash.status).toBe(400);
    expect(clash.body.msg).toContain("'Patch Other' already exists");
    const after = await t.api('GET', `/collaboration/${c}`, { token: t.rootToken });
    expect(after.body.name).toBe('Patched');
    expect(after.body.encrypted).toBe(true);
    const viewer = await t.fx.user(a, { roles: ['Organization Admin'] });
    expect(
      (await t.api('PATCH', `/collaboration/${c}`, { token: await viewer.token(), body: { name: 'x' } }))
        .status,
    ).toBe(401);
    expect(
      (await t.api('PATCH', '/collaboration/999999', { token: t.rootToken, body: { name: 'x' } })).status,
    ).toBe(404);
  });

  it('deletes a collaboration, keeping its nodes and tasks detached', async () => {
    const org = await t.fx.organization();
    const c = await t.fx.collaboration([org]);
    const node = await t.fx.node(org, c);
    const task = await t.fx.task(c, [org]);
    const r = await t.api('DELETE', `/collaboration/${c}`, { token: t.rootToken });
    expect(r.status).toBe(200);
    expect(r.body.msg).toContain(String(c));
    expect((await t.api('GET', `/collaboration/${c}`, { token: t.rootToken })).status).toBe(404);
    const n = await t.api('GET', `/node/${node.id}`, { token: t.rootToken });
    expect(n.status).toBe(200);
    expect(n.body.collaboration).toBeNull();
    const row = await t.ctx.dbh.db
      .selectFrom('task')
      .select('collaboration_id')
      .where('id', '=', task.id)
      .executeTakeFirst();
    expect(row).toEqual({ collaboration_id: null });
    expect((await t.api('DELETE', `/collaboration/${c}`, { token: t.rootToken })).status).toBe(404);
  });
});
