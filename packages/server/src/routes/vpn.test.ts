import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /vpn and POST /vpn/update', () => {
  it('answer 501 to nodes: Federa has no VPN server', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const node = await (await t.fx.node(org, collab)).token();
    const get = await t.api('GET', '/vpn', { token: node });
    expect(get.status).toBe(501);
    expect(get.body.msg).toBe('This server has no VPN configured');
    const update = await t.api('POST', '/vpn/update', {
      token: node,
      body: { vpn_config: 'client\nremote x' },
    });
    expect(update.status).toBe(501);
    expect(update.body.msg).toBe('This server has no VPN configured');
    expect((await t.api('POST', '/vpn/update', { token: node })).status).toBe(501);
    expect((await t.api('GET', '/vpn', { token: t.rootToken })).status).toBe(401);
  });
});

describe('GET /vpn/algorithm/addresses', () => {
  async function family() {
    const orgA = await t.fx.organization();
    const orgB = await t.fx.organization();
    const collab = await t.fx.collaboration([orgA, orgB]);
    const nodeA = await t.fx.node(orgA, collab);
    const nodeB = await t.fx.node(orgB, collab);
    const db = t.ctx.dbh.db;
    await db.updateTable('node').set({ ip: '10.76.0.2' }).where('id', '=', nodeA.id).execute();
    await db.updateTable('node').set({ ip: '10.76.0.3' }).where('id', '=', nodeB.id).execute();
    const parent = await t.fx.task(collab, [orgA]);
    const mine = await t.fx.task(collab, [orgA, orgB], { parentId: parent.id, runId: parent.runId });
    const child = await t.fx.task(collab, [orgB], { parentId: mine.id, runId: parent.runId });
    const port = (resultId: number, p: number, label: string) =>
      db.insertInto('port').values({ result_id: resultId, port: p, label }).execute();
    await port(parent.resultIds[0] as number, 1001, 'parent');
    await port(mine.resultIds[0] as number, 2001, 'com');
    await port(mine.resultIds[1] as number, 2002, 'other');
    await port(child.resultIds[0] as number, 3001, 'com');
    const token = await t.ctx.tokens.container({
      node_id: nodeA.id,
      organization_id: orgA,
      collaboration_id: collab,
      task_id: mine.id,
      image: 'algo',
      database: 'default',
    });
    return { orgA, orgB, parent, mine, child, token };
  }
  const ports = (body: { addresses: { port: number }[] }) => body.addresses.map((a) => a.port);
  const flags = {
    include_children: 'False',
    include_parent: 'False',
    only_children: 'False',
    only_parent: 'False',
  };

  it("gives the addresses of the container's task, its children and/or parent, reading 'False' as false", async () => {
    const f = await family();
    const own = await t.api('GET', '/vpn/algorithm/addresses', { token: f.token, query: flags });
    expect(own.status).toBe(200);
    expect(own.body.addresses).toEqual([
      {
        port: 2001,
        label: 'com',
        ip: '10.76.0.2',
        organization_id: f.orgA,
        task_id: f.mine.id,
        parent_id: f.parent.id,
      },
      {
        port: 2002,
        label: 'other',
        ip: '10.76.0.3',
        organization_id: f.orgB,
        task_id: f.mine.id,
        parent_id: f.parent.id,
      },
    ]);
    const q = (extra: Record<string, string>) =>
      t.api('GET', '/vpn/algorithm/addresses', { token: f.token, query: { ...flags, ...extra } });
    expect(ports((await q({ include_children: 'True' })).body)).toEqual([2001, 2002, 3001]);
    expect(ports((await q({ include_parent: '1', label: 'com' })).body)).toEqual([2001]);
    expect(ports((await q({ only_children: 'true' })).body)).toEqual([3001]);
    expect(ports((await q({ only_parent: 'yes' })).body)).toEqual([1001]);
    expect(
      ports(
        (await t.api('GET', '/vpn/algorithm/addresses', { token: f.token, query: { label: 'other' } })).body,
      ),
    ).toEqual([2002]);
  });

  it('refuses contradicting flags (400) and non-container callers (401)', async () => {
    const f = await family();
    for (const bad of [
      { only_children: 'True', only_parent: 'True' },
      { only_children: 'True', include_parent: 'True' },
      { only_parent: 'True', include_children: 'True' },
    ]) {
      expect(
        (await t.api('GET', '/vpn/algorithm/addresses', { token: f.token, query: { ...flags, ...bad } }))
          .status,
      ).toBe(400);
    }
    expect((await t.api('GET', '/vpn/algorithm/addresses', { token: t.rootToken })).status).toBe(401);
  });
});
