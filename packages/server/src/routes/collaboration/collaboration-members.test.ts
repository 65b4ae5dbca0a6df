/** A collaboration's members: its organizations and its nodes (/collaboration/{id}/organization and /node). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, expectSecondPage, startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const ids = (r: ApiResponse): number[] => (r.body as { id: number }[]).map((x) => x.id);

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
