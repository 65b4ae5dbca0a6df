/** POST /node: registering a node, its API key shown once, and what is refused. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_KEYS, startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

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
