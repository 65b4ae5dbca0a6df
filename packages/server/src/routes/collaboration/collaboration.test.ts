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

describe('/collaboration/{id}/organization', () => {
  it('lists members in the shape of /organization, paginated', async () => {
    const orgs = [
      await t.fx.organization(),
      await t.fx.organization(),
      await t.fx.organization(),
      await t.fx.organization(),
    ];
    const c = await t.fx.collaboration(orgs);
    const viewer = await t.fx.user(orgs[0] as number, { roles: ['Viewer'] });
    const token = await viewer.token();
    const r = await t.api('GET', `/collaboration/${c}/organization`, { token });
    expect(r.status).toBe(200);
    expect(ids(r)).toEqual(orgs);
    const direct = await t.api('GET', `/organization/${orgs[1]}`, { token: t.rootToken });
    expect(r.body[1]).toEqual(direct.body);
    await expectSecondPage(t, `/collaboration/${c}/organization`, token, orgs);
    const other = await t.fx.collaboration([await t.fx.organization()]);
    expect((await t.api('GET', `/collaboration/${other}/organization`, { token })).status).toBe(401);
    expect((await t.api('GET', '/collaboration/999999/organization', { token })).status).toBe(404);
  });

  it('adds and removes members, answering the member list', async () => {
    const a = await t.fx.organization();
    const b = await t.fx.organization();
    const c = await t.fx.collaboration([a]);
    const added = await t.api('POST', `/collaboration/${c}/organization`, {
      token: t.rootToken,
      body: { id: b },
    });
    expect(added.status).toBe(200);
    expect(ids(added)).toEqual([a, b]);
    expect(Object.keys(added.body[0])).toContain('domain');
    const again = await t.api('POST', `/collaboration/${c}/organization`, {
      token: t.rootToken,
      body: { id: b },
    });
    expect(ids(again)).toEqual([a, b]);
    // Added by four requests at the same moment: a member once, and every request answered as the first.
    const d = await t.fx.organization();
    const racing = await Promise.all(
      [1, 2, 3, 4].map(() =>
        t.api('POST', `/collaboration/${c}/organization`, { token: t.rootToken, body: { id: d } }),
      ),
    );
    for (const r of racing) {
      expect(r.status).toBe(200);
      expect(ids(r)).toEqual([a, b, d]);
    }
    await t.api('DELETE', `/collaboration/${c}/organization`, { token: t.rootToken, body: { id: d } });
    expect(
      (await t.api('POST', `/collaboration/${c}/organization`, { token: t.rootToken, body: { id: 999999 } }))
        .status,
    ).toBe(404);
    const removed = await t.api('DELETE', `/collaboration/${c}/organization`, {
      token: t.rootToken,
      body: { id: a },
    });
    expect(removed.status).toBe(200);
    expect(ids(removed)).toEqual([b]);
    const notMember = await t.api('DELETE', `/collaboration/${c}/organization`, {
      token: t.rootToken,
      body: { id: a },
    });
    expect(notMember.status).toBe(400);
    expect(notMember.body.msg).toContain('not a member');
    const editor = await t.fx.user(a, { rules: ['collaboration.e_glo'] });
    expect(
      (
        await t.api('DELETE', `/collaboration/${c}/organization`, {
          token: await editor.token(),
          body: { id: b },
        })
      ).status,
    ).toBe(401);
  });
});

describe('/collaboration/{id}/node', () => {
  it('lists the nodes in the same item shape as GET /node, paginated', async () => {
    const orgs = [await t.fx.organization(), await t.fx.organization(), await t.fx.organization()];
    const c = await t.fx.collaboration(orgs);
    const nodes = [];
    for (const org of orgs) nodes.push((await t.fx.node(org, c)).id);
    const viewer = await t.fx.user(orgs[0] as number, { roles: ['Viewer'] });
    const r = await t.api('GET', `/collaboration/${c}/node`, { token: await viewer.token() });
    expect(r.status).toBe(200);
    expect(ids(r)).toEqual(nodes);
    const list = await t.api('GET', '/node', { token: t.rootToken, query: { collaboration_id: c } });
    expect(r.body).toEqual(list.body);
    expect(Object.keys(r.body[0]).sort()).toEqual(Object.keys(list.body[0]).sort());
    await expectSecondPage(t, `/collaboration/${c}/node`, t.rootToken, nodes);
    const other = await t.fx.collaboration([await t.fx.organization()]);
    expect((await t.api('GET', `/collaboration/${other}/node`, { token: await viewer.token() })).status).toBe(
      401,
    );
  });

  it('moves a node in (201) and detaches it (DELETE), with the one-node-per-organization rule', async () => {
    const org = await t.fx.organization();
    const from = await t.fx.collaboration([org]);
    const to = await t.fx.collaboration([org]);
    const node = await t.fx.node(org, from);
    const moved = await t.api('POST', `/collaboration/${to}/node`, {
      token: t.rootToken,
      body: { id: node.id },
    });
    expect(moved.status).toBe(201);
    expect(ids(moved)).toEqual([node.id]);
    expect(moved.body[0].collaboration.id).toBe(to);
    const twice = await t.api('POST', `/collaboration/${to}/node`, {
      token: t.rootToken,
      body: { id: node.id },
    });
    expect(twice.status).toBe(400);
    expect(twice.body.msg).toContain('already in collaboration');
    const second = await t.fx.node(org, from);
    const dup = await t.api('POST', `/collaboration/${to}/node`, {
      token: t.rootToken,
      body: { id: second.id },
    });
    expect(dup.status).toBe(400);
    expect(dup.body.msg).toContain('at most one node per collaboration');
    const stranger = await t.fx.node(await t.fx.organization(), null);
    const outsider = await t.api('POST', `/collaboration/${to}/node`, {
      token: t.rootToken,
      body: { id: stranger.id },
    });
    expect(outsider.status).toBe(400);
    expect(outsider.body.msg).toContain('not a member');
    expect(
      (await t.api('POST', `/collaboration/${to}/node`, { token: t.rootToken, body: { id: 999999 } })).status,
    ).toBe(404);

    const detached = await t.api('DELETE', `/collaboration/${to}/node`, {
      token: t.rootToken,
      body: { id: node.id },
    });
    expect(detached.status).toBe(200);
    expect(detached.body.msg).toContain(String(node.id));
    expect((await t.api('GET', `/node/${node.id}`, { token: t.rootToken })).body.collaboration).toBeNull();
    expect((await t.api('GET', `/collaboration/${to}/node`, { token: t.rootToken })).body).toEqual([]);
    const notIn = await t.api('DELETE', `/collaboration/${to}/node`, {
      token: t.rootToken,
      body: { id: node.id },
    });
    expect(notIn.status).toBe(400);
    expect(notIn.body.msg).toContain('not part of');
    const viewer = await t.fx.user(org, { roles: ['Organization Admin'] });
    expect(
      (
        await t.api('DELETE', `/collaboration/${from}/node`, {
          token: await viewer.token(),
          body: { id: second.id },
        })
      ).status,
    ).toBe(401);
  });
});

describe('GET /collaboration/{id}/task', () => {
  it('lists the tasks of a member collaboration, with results on request, paginated', async () => {
    const a = await t.fx.organization();
    const b = await t.fx.organization();
    const c = await t.fx.collaboration([a, b]);
    const tasks = [];
    for (let i = 0; i < 5; i++) tasks.push((await t.fx.task(c, [a, b])).id);
    const elsewhere = await t.fx.collaboration([a]);
    await t.fx.task(elsewhere, [a]);
    const viewer = await t.fx.user(a, { roles: ['Viewer'] });
    const token = await viewer.token();
    const r = await t.api('GET', `/collaboration/${c}/task`, { token });
    expect(r.status).toBe(200);
    expect(ids(r)).toEqual(tasks);
    expect(r.body[0].results).toHaveLength(2);
    expect(Object.keys(r.body[0].results[0]).sort()).toEqual(['id', 'link', 'methods']);
    const full = await t.api('GET', `/collaboration/${c}/task`, { token, query: { include: 'results' } });
    expect(full.body[0].results[0]).toMatchObject({ organization: a, status: 'pending', input: 'aW5wdXQ=' });
    await expectSecondPage(t, `/collaboration/${c}/task`, token, tasks);
    const stranger = await t.fx.user(await t.fx.organization(), { roles: ['Viewer'] });
    expect((await t.api('GET', `/collaboration/${c}/task`, { token: await stranger.token() })).status).toBe(
      401,
    );
    expect((await t.api('GET', '/collaboration/999999/task', { token })).status).toBe(404);
    const node = await t.fx.node(b, c);
    expect(ids(await t.api('GET', `/collaboration/${c}/task`, { token: await node.token() }))).toEqual(tasks);
  });
});

describe('results of foreign collaborations stay hidden in task listings', () => {
  it('embeds no results for root in GET /collaboration/{id}/task and GET /node/{id}/task with include=results', async () => {
    const a = await t.fx.organization();
    const collab = await t.fx.collaboration([a]);
    const node = await t.fx.node(a, collab);
    await t.fx.task(collab, [a]);
    for (const path of [`/collaboration/${collab}/task`, `/node/${node.id}/task`]) {
      const r = await t.api('GET', path, { token: t.rootToken, query: { include: 'results' } });
      expect(r.status).toBe(200);
      expect(r.body).toHaveLength(1);
      expect(r.body[0].results).toEqual([]);
    }
    // A member of the collaboration does see them.
    const member = await t.fx.user(a, { rules: ['task.v_org', 'result.v_org'] });
    const mine = await t.api('GET', `/collaboration/${collab}/task`, {
      token: await member.token(),
      query: { include: 'results' },
    });
    expect(mine.body[0].results).toHaveLength(1);
  });
});
