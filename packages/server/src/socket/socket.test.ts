import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { io as connectClient, type Socket } from 'socket.io-client';
import type {
  AlgorithmStatusChangePayload,
  ClientToServerEvents,
  NodePresencePayload,
  ServerToClientEvents,
} from '@federa/common';
import { startTestApp, type TestApp } from '@federa/testing';
import { TokenService } from '../auth/tokens.js';
import { openSession } from '../auth/sessions.js';
import { SocketServer } from './socket-server.js';
import { presenceRoom } from './rooms.js';
import type { Presence } from './presence.js';

type Client = Socket<ServerToClientEvents, ClientToServerEvents>;

let t: TestApp;
let sockets: SocketServer;
let presence: Presence;
let url: string;
const clients: Client[] = [];

beforeAll(async () => {
  sockets = new SocketServer();
  t = await startTestApp({ events: sockets.events });
  presence = sockets.bind(t.ctx);
  sockets.attach(t.app.server);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterEach(() => {
  for (const c of clients.splice(0)) c.disconnect();
});
afterAll(async () => {
  await sockets.close();
  await t.close();
});

/** A real socket.io client on `/tasks`, authenticated like a vantage6 node: the Authorization header. */
function connect(
  token: string | null,
  options: { auth?: boolean; transports?: ('polling' | 'websocket')[] } = {},
): Client {
  const c: Client = connectClient(`${url}/tasks`, {
    forceNew: true,
    reconnection: false,
    transports: options.transports ?? ['polling', 'websocket'],
    ...(token !== null && !options.auth ? { extraHeaders: { Authorization: `Bearer ${token}` } } : {}),
    ...(token !== null && options.auth ? { auth: { token } } : {}),
  });
  clients.push(c);
  return c;
}

const connected = (c: Client): Promise<void> =>
  new Promise((resolve, reject) => {
    if (c.connected) return resolve();
    c.once('connect', () => resolve());
    c.once('connect_error', reject);
  });

async function until<T>(
  what: string,
  probe: () => Promise<T> | T,
  ok: (v: T) => boolean,
  timeoutMs = 5000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The user's stored online status. */
async function userStatus(id: number): Promise<string | null> {
  const row = await t.ctx.dbh.db
    .selectFrom('user')
    .select('status')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.status;
}

/** The node as the API shows it. */
async function nodeView(
  id: number,
): Promise<{ status: string | null; last_seen: string | null; config: { key: string; value: string }[] }> {
  const r = await t.api('GET', `/node/${id}`, { token: t.rootToken });
  expect(r.status).toBe(200);
  return r.body;
}

/** Waits until this instance has handled every connect and disconnect of the identity's sockets. */
async function settled(nodeId: number, liveSockets: number): Promise<void> {
  await until(
    'socket count',
    async () => (await sockets.nsp.in(presenceRoom({ kind: 'node', id: nodeId })).fetchSockets()).length,
    (n) => n === liveSockets,
  );
  await presence.idle();
}

/** The arguments of the next `event` on `c` (that `match` accepts). */
const received = <E extends keyof ServerToClientEvents>(
  c: Client,
  event: E,
  match: (...args: Parameters<ServerToClientEvents[E]>) => boolean = () => true,
  timeoutMs = 5000,
): Promise<Parameters<ServerToClientEvents[E]>> =>
  new Promise((resolve, reject) => {
    const untyped = c as unknown as {
      on(e: string, l: (...a: unknown[]) => void): void;
      off(e: string, l: (...a: unknown[]) => void): void;
    };
    const on = (e: string, l: (...a: unknown[]) => void): void => untyped.on(e, l);
    const off = (e: string, l: (...a: unknown[]) => void): void => untyped.off(e, l);
    const listener = (...args: unknown[]): void => {
      if (!match(...(args as Parameters<ServerToClientEvents[E]>))) return;
      clearTimeout(timer);
      off(event, listener);
      resolve(args as Parameters<ServerToClientEvents[E]>);
    };
    const timer = setTimeout(() => {
      off(event, listener);
      reject(new Error(`no ${event} within ${timeoutMs} ms`));
    }, timeoutMs);
    on(event, listener);
  });

async function network(): Promise<{
  orgs: number[];
  collab: number;
  nodes: Awaited<ReturnType<TestApp['fx']['node']>>[];
}> {
  const orgs = [await t.fx.organization(), await t.fx.organization()];
  const collab = await t.fx.collaboration(orgs);
  const nodes = [await t.fx.node(orgs[0]!, collab), await t.fx.node(orgs[1]!, collab)];
  return { orgs, collab, nodes };
}

describe('online status', () => {
  it('shows a node online while its socket is connected and offline after it disconnects', async () => {
    const { nodes } = await network();
    const node = nodes[0]!;
    expect((await nodeView(node.id)).status).not.toBe('online');
    const c = connect(await node.token());
    await connected(c);
    await settled(node.id, 1);
    const online = await nodeView(node.id);
    expect(online.status).toBe('online');
    expect(online.last_seen).not.toBeNull();
    c.disconnect();
    await settled(node.id, 0);
    expect((await nodeView(node.id)).status).toBe('offline');
  });

  it('keeps a node online when it reconnects at once (new socket before or after the old one closes)', async () => {
    const { nodes } = await network();
    const node = nodes[0]!;
    const token = await node.token();
    let current = connect(token);
    await connected(current);
    await settled(node.id, 1);
    for (let round = 0; round < 6; round++) {
      const old = current;
      if (round % 2 === 0) {
        old.disconnect();
        current = connect(token);
      } else {
        current = connect(token);
        await connected(current);
        old.disconnect();
      }
      await connected(current);
      await settled(node.id, 1);
      expect((await nodeView(node.id)).status, `round ${round}`).toBe('online');
    }
    current.disconnect();
    await settled(node.id, 0);
    expect((await nodeView(node.id)).status).toBe('offline');
  });

  it('announces a node joining and leaving to the users watching its collaboration, not to the other nodes', async () => {
    const { orgs, nodes } = await network();
    const viewer = await t.fx.user(orgs[1]!, { rules: ['event.v_col'] });
    const watcher = connect(await viewer.token());
    const otherNode = connect(await nodes[1]!.token());
    await Promise.all([connected(watcher), connected(otherNode)]);
    await settled(nodes[1]!.id, 1);
    await until(
      'viewer online',
      () => userStatus(viewer.id),
      (s) => s === 'online',
    );
    const nodeHeard: string[] = [];
    otherNode.on('node-online', () => nodeHeard.push('node-online'));
    otherNode.on('node-offline', () => nodeHeard.push('node-offline'));
    otherNode.on('message', (text) => nodeHeard.push(text));
    const about = (p: NodePresencePayload): boolean => p.id === nodes[0]!.id;
    const online = received(watcher, 'node-online', about);
    const joined = received(watcher, 'message', (text) => text.includes('joined room collaboration_'));
    const c = connect(await nodes[0]!.token());
    const expected: NodePresencePayload = {
      id: nodes[0]!.id,
      name: expect.any(String) as unknown as string,
      org_id: orgs[0]!,
    };
    expect((await online)[0]).toEqual(expected);
    expect((await joined)[0]).toMatch(/ joined room collaboration_\d+$/);
    const offline = received(watcher, 'node-offline', about);
    const left = received(watcher, 'message', (text) => text.includes('left room collaboration_'));
    await connected(c);
    await settled(nodes[0]!.id, 1);
    c.disconnect();
    expect((await offline)[0]).toEqual(expected);
    await left;
    // The watcher has heard all of it; a node of the same collaboration heard none of it.
    expect(nodeHeard).toEqual([]);
  });

  it('marks a user online while connected; the auth payload token works for browsers', async () => {
    const org = await t.fx.organization();
    const user = await t.fx.user(org);
    const c = connect(await user.token(), { auth: true, transports: ['websocket'] });
    await connected(c);
    await until(
      'user online',
      () => userStatus(user.id),
      (s) => s === 'online',
    );
    c.disconnect();
    await until(
      'user offline',
      () => userStatus(user.id),
      (s) => s === 'offline',
    );
  });
});

describe('rooms and events', () => {
  it('delivers new_task to the nodes of the collaboration and not to a node of another collaboration', async () => {
    const { orgs, collab, nodes } = await network();
    const otherCollab = await t.fx.collaboration([orgs[0]!]);
    const outsider = await t.fx.node(orgs[0]!, otherCollab);
    const inside = [connect(await nodes[0]!.token()), connect(await nodes[1]!.token())];
    const outside = connect(await outsider.token());
    await Promise.all([...inside, outside].map(connected));
    await Promise.all([settled(nodes[0]!.id, 1), settled(nodes[1]!.id, 1), settled(outsider.id, 1)]);
    const outsiderGot: unknown[] = [];
    outside.on('new_task', (id) => outsiderGot.push(id));

    const task = await t.fx.task(collab, orgs);
    const arrivals = inside.map((c) => received(c, 'new_task'));
    t.ctx.events.emit(`collaboration_${collab}`, 'new_task', task.id);
    for (const a of arrivals) expect(await a).toEqual([task.id]);
    // The outsider's connection is as fast as the others: give it a generous moment, then check nothing arrived.
    await new Promise((r) => setTimeout(r, 300));
    expect(outsiderGot).toEqual([]);
  });

  it('delivers new_task and task_created to the nodes when a user posts a task through the API', async () => {
    const { orgs, collab, nodes } = await network();
    const c = connect(await nodes[1]!.token());
    await connected(c);
    await settled(nodes[1]!.id, 1);
    const created = received(c, 'task_created');
    const arrived = received(c, 'new_task');
    const researcher = await t.fx.user(orgs[0]!, { roles: ['Researcher'] });
    const r = await t.api('POST', '/task', {
      token: await researcher.token(),
      body: {
        collaboration_id: collab,
        organizations: orgs.map((id) => ({ id, input: 'aW5wdXQ=' })),
        image: 'example/image',
        name: 'socket test',
        database: 'default',
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(await arrived).toEqual([r.body.id]);
    expect((await created)[0]).toMatchObject({ task_id: r.body.id, collaboration_id: collab });
  });

  it('tells of a new task only the nodes with a run in it, and the users watching the collaboration', async () => {
    const { orgs, collab, nodes } = await network();
    const researcher = await t.fx.user(orgs[0]!, { roles: ['Researcher'] });
    const watcher = await t.fx.user(orgs[0]!, { rules: ['event.v_col'] });
    const [withRun, withoutRun, user] = [
      connect(await nodes[0]!.token()),
      connect(await nodes[1]!.token()),
      connect(await watcher.token()),
    ];
    await Promise.all([withRun, withoutRun, user].map(connected));
    await Promise.all([settled(nodes[0]!.id, 1), settled(nodes[1]!.id, 1)]);
    await until(
      'watcher online',
      () => userStatus(watcher.id),
      (v) => v === 'online',
    );
    await presence.idle();
    const idle: unknown[] = [];
    for (const event of ['new_task', 'task_created'] as const)
      withoutRun.on(event, (p: unknown) => idle.push([event, p]));
    const told = [received(withRun, 'new_task'), received(user, 'new_task')];
    const created = [received(withRun, 'task_created'), received(user, 'task_created')];
    const r = await t.api('POST', '/task', {
      token: await researcher.token(),
      body: {
        collaboration_id: collab,
        organizations: [{ id: orgs[0]!, input: 'aW5wdXQ=' }],
        image: 'example/image',
        name: 'for one organization',
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    for (const got of told) expect(await got).toEqual([r.body.id]);
    for (const got of created) expect((await got)[0]).toMatchObject({ task_id: r.body.id });
    // The node of an organization that neither runs nor asked for the task hears nothing of it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(idle).toEqual([]);
  });

  it('lets users watch collaborations per their event rules', async () => {
    const { orgs, collab } = await network();
    const colViewer = await t.fx.user(orgs[0]!, { rules: ['event.v_col'] });
    const orgViewer = await t.fx.user(orgs[1]!, { rules: ['event.v_org'] });
    const stranger = await t.fx.user(await t.fx.organization(), { rules: ['event.v_col'] });
    const [a, b, s, root] = [
      connect(await colViewer.token()),
      connect(await orgViewer.token()),
      connect(await stranger.token()),
      connect(t.rootToken),
    ];
    await Promise.all([a, b, s, root].map(connected));
    for (const u of [colViewer, orgViewer, stranger]) {
      await until(
        `user ${u.id} settled`,
        () => userStatus(u.id),
        (v) => v === 'online',
      );
    }
    await presence.idle();
    const got = { b: [] as unknown[], s: [] as unknown[] };
    b.on('status_update', (p) => got.b.push(p));
    s.on('status_update', (p) => got.s.push(p));
    const arrivals = [received(a, 'status_update'), received(root, 'status_update')];
    t.ctx.events.emit(`collaboration_${collab}`, 'status_update', { result_id: 7 });
    for (const p of arrivals) expect(await p).toEqual([{ result_id: 7 }]);
    const orgRoom = received(b, 'status_update');
    t.ctx.events.emit(`collaboration_${collab}_organization_${orgs[1]}`, 'status_update', { result_id: 8 });
    expect(await orgRoom).toEqual([{ result_id: 8 }]);
    await new Promise((r) => setTimeout(r, 200));
    expect(got.b).toEqual([{ result_id: 8 }]);
    expect(got.s).toEqual([]);
  });

  it("relays algorithm_status_change with the run id to the run's audience, and a failure to every node", async () => {
    const { orgs, collab, nodes } = await network();
    const task = await t.fx.task(collab, orgs);
    const viewer = await t.fx.user(orgs[1]!, { rules: ['event.v_col'] });
    const sender = connect(await nodes[0]!.token());
    // The node of orgs[1]: neither the run's organization nor the task's initiator.
    const otherNode = connect(await nodes[1]!.token());
    const user = connect(await viewer.token());
    await Promise.all([sender, otherNode, user].map(connected));
    await Promise.all([settled(nodes[0]!.id, 1), settled(nodes[1]!.id, 1)]);
    await until(
      'viewer online',
      () => userStatus(viewer.id),
      (v) => v === 'online',
    );
    const heardByOtherNode: unknown[] = [];
    otherNode.on('algorithm_status_change', (p) => heardByOtherNode.push(p));
    const relayed = received(user, 'algorithm_status_change');
    const echoed = received(sender, 'algorithm_status_change');
    const report = (status: string, resultId = task.resultIds[0]!) =>
      sender.emit('algorithm_status_change', {
        node_id: nodes[0]!.id,
        status,
        result_id: resultId,
        task_id: task.id,
        collaboration_id: collab,
        organization_id: orgs[0]!,
        parent_id: null,
      });
    report('active');
    const expected: AlgorithmStatusChangePayload = {
      status: 'active',
      result_id: task.resultIds[0]!,
      task_id: task.id,
      run_id: task.runId,
      collaboration_id: collab,
      node_id: nodes[0]!.id,
      organization_id: orgs[0]!,
      parent_id: null,
    };
    expect((await relayed)[0]).toEqual(expected);
    expect((await echoed)[0]).toEqual(expected);

    // A failure reaches every node of the collaboration (vantage6 3.x nodes log it for their administrator).
    const failure = received(otherNode, 'algorithm_status_change');
    report('crashed');
    expect((await failure)[0]).toEqual({ ...expected, status: 'crashed' });
    // The other node heard the failure only, not that the run became active.
    expect(heardByOtherNode).toEqual([{ ...expected, status: 'crashed' }]);

    // A node cannot report on the result of another organization.
    const ignored: unknown[] = [];
    user.on('algorithm_status_change', (p) => ignored.push(p));
    report('failed', task.resultIds[1]!);
    await new Promise((r) => setTimeout(r, 300));
    expect(ignored).toEqual([]);
  });

  it('stores node_info_update as one row per scalar and per list element, and drops it on disconnect', async () => {
    const { nodes } = await network();
    const c = connect(await nodes[0]!.token());
    await connected(c);
    c.emit('node_info_update', {
      encryption: false,
      allowed_algorithms: ['^harbor\\.example/.*', 'other/image'],
      allowed_orgs: [3, 'Org name'],
    });
    await settled(nodes[0]!.id, 1);
    const config = await until(
      'config stored',
      async () => (await nodeView(nodes[0]!.id)).config,
      (cfg) => cfg.length === 5,
    );
    expect(config).toEqual([
      { key: 'encryption', value: 'False' },
      { key: 'allowed_algorithms', value: '^harbor\\.example/.*' },
      { key: 'allowed_algorithms', value: 'other/image' },
      { key: 'allowed_orgs', value: '3' },
      { key: 'allowed_orgs', value: 'Org name' },
    ]);
    c.emit('node_info_update', { encryption: true, allowed_algorithms: 'all' });
    await until(
      'config replaced',
      async () => (await nodeView(nodes[0]!.id)).config,
      (cfg) => cfg.length === 2,
    );
    c.disconnect();
    await settled(nodes[0]!.id, 0);
    expect((await nodeView(nodes[0]!.id)).config).toEqual([]);
  });

  it('refreshes last_seen on ping', async () => {
    const { nodes } = await network();
    const c = connect(await nodes[0]!.token());
    await connected(c);
    await settled(nodes[0]!.id, 1);
    await t.ctx.dbh.db
      .updateTable('node')
      .set({ last_seen: '2000-01-01T00:00:00.000000' })
      .where('id', '=', nodes[0]!.id)
      .execute();
    c.emit('ping');
    const seen = await until(
      'last_seen refreshed',
      async () => (await nodeView(nodes[0]!.id)).last_seen,
      (v) => v !== null && !v.startsWith('2000-'),
    );
    expect(Date.now() - Date.parse(seen!)).toBeLessThan(60_000);
  });
});

describe('authentication', () => {
  const expiredToken = async (kind: 'node' | 'user', id: number): Promise<string> =>
    new TokenService('test-secret-key-that-is-long-enough', {
      accessSeconds: -60,
      refreshSeconds: 60,
      resetSeconds: 60,
    }).access(kind, id, { sid: 'no-session', endsAt: Date.now() + 3_600_000 });

  /** Must be called before the client's first events can arrive (same tick as connect). */
  async function expiredTokenEvents(c: Client): Promise<unknown[][]> {
    const events: unknown[][] = [];
    c.on('expired_token', (...args: unknown[]) => events.push(args));
    await connected(c);
    await until(
      'two expired_token events',
      () => events.length,
      (n) => n >= 2,
    );
    return events;
  }

  it('accepts a socket with an expired token but tells it expired_token, once with "" and once without argument', async () => {
    const { nodes } = await network();
    const c = connect(await expiredToken('node', nodes[0]!.id));
    expect(await expiredTokenEvents(c)).toEqual([[''], []]);
    expect(c.connected).toBe(true);
    await presence.idle();
    expect((await nodeView(nodes[0]!.id)).status).not.toBe('online');
  });

  it('sends expired_token for a missing, forged or refresh token, and such sockets get no room events', async () => {
    const { collab, nodes } = await network();
    const forged = new TokenService('another-secret-that-is-long-enough', {
      accessSeconds: 60,
      refreshSeconds: 60,
      resetSeconds: 60,
    });
    const tokens = [
      null,
      await forged.access('node', nodes[0]!.id, { sid: 'no-session', endsAt: Date.now() + 3_600_000 }),
      (await openSession(t.ctx, 'node', nodes[0]!.id)).refresh_token,
    ];
    const bad = tokens.map((token) => connect(token));
    const events = bad.map(expiredTokenEvents);
    for (const e of events) expect(await e).toEqual([[''], []]);
    const got: unknown[] = [];
    for (const c of bad) c.on('new_task', (id) => got.push(id));
    t.ctx.events.emit(`collaboration_${collab}`, 'new_task', 1);
    t.ctx.events.emit('all_nodes', 'new_task', 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(got).toEqual([]);
  });
});
