/** GET, PATCH and DELETE /node and a node's tasks: scope, filters, renames, moves and deletion. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_KEYS, type ApiResponse, expectSecondPage, startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const ids = (r: ApiResponse): number[] => (r.body as { id: number }[]).map((x) => x.id);

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

    const n4 = await t.fx.node(other, await t.fx.collaboration([other]), 'filter-four');

    // A Viewer sees the nodes of its collaborations (node VIEW COLLABORATION), not those of another.
    const viewer = await t.fx.user(own, { roles: ['Viewer'] });
    const token = await viewer.token();
    expect(ids(await t.api('GET', '/node', { token }))).toEqual([n1.id, n2.id, n3.id]);
    expect((await t.api('GET', `/node/${n4.id}`, { token })).status).toBe(401);
    expect((await t.api('GET', `/node/${n1.id}`, { token })).body.name).toBe('filter-one');
    expect((await t.api('GET', '/node/999999', { token })).status).toBe(404);
    const root = t.rootToken;
    const q = async (query: Record<string, string | number>) =>
      ids(await t.api('GET', '/node', { token: root, query: { name: 'filter-%', ...query } }));
    expect(await q({})).toEqual([n1.id, n2.id, n3.id, n4.id]);
    expect(await q({ organization_id: other })).toEqual([n3.id, n4.id]);
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
    expect(ids(await t.api('GET', '/node', { token: await n3.token() }))).toEqual([n3.id, n4.id]);
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
