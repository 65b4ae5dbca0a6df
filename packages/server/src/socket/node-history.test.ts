/**
 * A node's online history (`GET /node/{id}/history`, docs/socket-protocol.md#online-history) over real sockets: the periods a
 * user sees after the node connects, disconnects, reconnects at once, is cut off by the server, or was left online
 * by a crashed server; who may read them; pagination; the bound per node. Real server on port 0, real socket.io
 * clients, on SQLite and (FEDERA_TEST_DB=postgres) PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import {
  connected,
  disconnected,
  expectSecondPage,
  nodeView,
  socketNetwork,
  startSocketApp,
  type SocketApp,
  type TestApp,
} from '@federa/testing';
import { useSocketApp } from '@federa/testing/hooks';
import { formatStored } from '../db/stored-time.js';
import { closePeriods, KEPT_PERIODS, openPeriods, reopenPeriod } from '../repositories/node-history.js';

let s: SocketApp;
let t: TestApp;
useSocketApp((started) => ({ s, t } = started));

interface Period {
  id: number;
  node: { id: number; link: string; methods: string[] };
  started_at: string;
  ended_at: string | null;
  end_reason: string | null;
}

async function history(nodeId: number, token = t.rootToken): Promise<Period[]> {
  const r = await t.api('GET', `/node/${nodeId}/history`, { token });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as Period[];
}

/** Connects the node, waits until the server has marked it online; answers the client. */
async function online(node: { id: number; token(): Promise<string> }, token?: string) {
  const c = s.connect(token ?? (await node.token()));
  await connected(c);
  await s.joined(c);
  await s.settled(node.id, 1);
  return c;
}

describe('online history', () => {
  it('shows each time a node was online: open while connected, ended with why after it leaves', async () => {
    const { nodes } = await socketNetwork(t);
    const node = nodes[0]!;
    expect(await history(node.id)).toEqual([]);

    const first = await online(node);
    const [open] = await history(node.id);
    expect(open).toEqual({
      id: expect.any(Number) as unknown,
      node: { id: node.id, link: `/api/node/${node.id}`, methods: expect.any(Array) as unknown },
      started_at: (await nodeView(t, node.id)).last_seen,
      ended_at: null,
      end_reason: null,
    });
    expect(open!.started_at).toMatch(/\+00:00$/);

    first.disconnect();
    await s.settled(node.id, 0);
    const [ended] = await history(node.id);
    expect(ended).toMatchObject({ id: open!.id, started_at: open!.started_at, end_reason: 'disconnected' });
    expect(Date.parse(ended!.ended_at!)).toBeGreaterThanOrEqual(Date.parse(ended!.started_at));

    await online(node);
    const periods = await history(node.id);
    expect(periods.map((p) => [p.ended_at === null, p.end_reason])).toEqual([
      [true, null],
      [false, 'disconnected'],
    ]);
    expect(periods[0]!.id).toBeGreaterThan(periods[1]!.id);
  });

  it('keeps one period when the node reconnects with its new socket up before the old one closes', async () => {
    const { nodes } = await socketNetwork(t);
    const node = nodes[0]!;
    const token = await node.token();
    let current = await online(node, token);
    for (let round = 0; round < 4; round++) {
      const next = s.connect(token);
      await connected(next);
      await s.joined(next);
      current.disconnect();
      current = next;
      await s.settled(node.id, 1);
    }
    const periods = await history(node.id);
    expect(periods).toHaveLength(1);
    expect(periods[0]!.ended_at).toBeNull();
  });

  it("names the server as the cause when it closes the node's socket (API key reset)", async () => {
    const { nodes } = await socketNetwork(t);
    const node = nodes[0]!;
    const c = await online(node);
    const gone = disconnected(c);
    const reset = await t.api('POST', '/recover/node', { token: t.rootToken, body: { id: node.id } });
    expect(reset.status).toBe(200);
    await gone;
    await s.settled(node.id, 0);
    expect((await history(node.id))[0]!.end_reason).toBe('disconnected_by_server');
  });

  it('ends a period a crashed server left open at the node’s last sign of life when the server starts', async () => {
    const { nodes } = await socketNetwork(t);
    const node = nodes[0]!;
    const db = t.ctx.dbh.db;
    const lastSeen = formatStored(new Date(Date.now() - 3_600_000));
    const started = formatStored(new Date(Date.now() - 7_200_000));
    await db
      .updateTable('node')
      .set({ status: 'online', last_seen: lastSeen })
      .where('id', '=', node.id)
      .execute();
    await openPeriods(db, [node.id], started);
    await s.presence.resetAll();
    const [period] = await history(node.id);
    expect(period).toMatchObject({
      started_at: `${started}+00:00`,
      ended_at: `${lastSeen}+00:00`,
      end_reason: 'server_restarted',
    });
    expect((await nodeView(t, node.id)).status).toBe('offline');
  });

  it('folds back an outage another instance undid: the period ended while a socket appeared elsewhere', async () => {
    const { nodes } = await socketNetwork(t);
    const node = nodes[0]!;
    const db = t.ctx.dbh.db;
    await openPeriods(db, [node.id], formatStored(new Date()));
    const ended = (await closePeriods(db, [node.id], formatStored(new Date()), 'disconnected')).get(node.id)!;
    // The other instance's connect, between this one's "offline" and its second look.
    await openPeriods(db, [node.id], formatStored(new Date()));
    await reopenPeriod(db, node.id, ended);
    const periods = await history(node.id);
    expect(periods.map((p) => [p.id, p.ended_at, p.end_reason])).toEqual([[ended, null, null]]);
  });

  it(`keeps the latest ${KEPT_PERIODS} periods of a node that comes and goes`, async () => {
    const { nodes } = await socketNetwork(t);
    const node = nodes[0]!;
    const db = t.ctx.dbh.db;
    const at = (minutes: number) => formatStored(new Date(Date.now() - minutes * 60_000));
    await db
      .insertInto('node_online_period')
      .values(
        Array.from({ length: KEPT_PERIODS }, (_, i) => ({
          node_id: node.id,
          started_at: at(2 * (KEPT_PERIODS - i) + 1),
          ended_at: at(2 * (KEPT_PERIODS - i)),
          end_reason: 'timed_out',
        })),
      )
      .execute();
    const oldest = (await history(node.id)).at(-1)!;
    await online(node);
    const periods = await history(node.id);
    expect(periods).toHaveLength(KEPT_PERIODS);
    expect(periods[0]!.ended_at).toBeNull();
    expect(periods.map((p) => p.id)).not.toContain(oldest.id);
  });

  it('pages newest first, with the links of every listing', async () => {
    const { nodes } = await socketNetwork(t);
    const node = nodes[0]!;
    const token = await node.token();
    for (let i = 0; i < 5; i++) {
      const c = await online(node, token);
      c.disconnect();
      await s.settled(node.id, 0);
    }
    const all = (await history(node.id)).map((p) => p.id);
    expect(all).toHaveLength(5);
    expect([...all].sort((a, b) => b - a)).toEqual(all);
    await expectSecondPage(t, `/node/${node.id}/history`, t.rootToken, all);
  });

  it('is refused to those who may not view the node, with the reason; an unknown node is 404', async () => {
    const { orgs, nodes } = await socketNetwork(t);
    const own = await t.fx.user(orgs[0]!, { rules: ['node.v_org'] });
    const other = await t.fx.user(orgs[1]!, { rules: ['node.v_org'] });
    const none = await t.fx.user(orgs[0]!);
    expect(await history(nodes[0]!.id, await own.token())).toEqual([]);
    const refused = await t.api('GET', `/node/${nodes[0]!.id}/history`, { token: await other.token() });
    // `forbidden` is a 401, as in vantage6 (docs/errors.md).
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('forbidden');
    expect(refused.body.msg).toBe(
      `You lack the permission to view node ${nodes[0]!.id}: it belongs to another organization.`,
    );
    const bare = await t.api('GET', `/node/${nodes[0]!.id}/history`, { token: await none.token() });
    expect(bare.body.code).toBe('forbidden');
    expect((await t.api('GET', `/node/${nodes[0]!.id}/history`, {})).status).toBe(401);
    const nodeCaller = await t.api('GET', `/node/${nodes[0]!.id}/history`, {
      token: await nodes[0]!.token(),
    });
    expect(nodeCaller.status).toBe(401);
    const missing = await t.api('GET', '/node/999999/history', { token: t.rootToken });
    expect(missing.status).toBe(404);
    expect(missing.body.msg).toContain('999999');
  });
});

describe('a server that stops', () => {
  it('ends the periods of the nodes connected to it, naming the stop', async () => {
    const other = await startSocketApp();
    try {
      const { nodes } = await socketNetwork(other.t);
      const c = other.connect(await nodes[0]!.token());
      await connected(c);
      await other.joined(c);
      await other.settled(nodes[0]!.id, 1);
      // Closes every socket of the instance and waits for the status writes (the HTTP side stays up).
      await other.sockets.close();
      const r = await other.t.api('GET', `/node/${nodes[0]!.id}/history`, { token: other.t.rootToken });
      expect((r.body as Period[]).map((p) => [p.ended_at === null, p.end_reason])).toEqual([
        [false, 'server_stopped'],
      ]);
    } finally {
      await other.t.close();
    }
  });
});
