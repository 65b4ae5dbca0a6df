import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Balancer,
  call,
  createTestDatabase,
  FakeNode,
  startBalancer,
  startTestServer,
  type TestDatabase,
  type TestServer,
  until,
} from '@federa/testing';

// Two real instances (startServer) on one fresh PostgreSQL database, connected through the Redis at
// 127.0.0.1:6379 (a channel of this run only), behind a real nginx. The node is a socket client doing what the
// node daemon does (FakeNode): the daemon itself needs Docker and is tested in packages/node.

const REDIS = process.env.FEDERA_TEST_REDIS ?? 'redis://127.0.0.1:6379';

let dir: string;
let db: TestDatabase;
let one: TestServer;
let two: TestServer;
let balancer: Balancer;
const nodes: FakeNode[] = [];
let world: {
  collab: number;
  orgs: number[];
  node: { id: number; apiKey: string };
  other: { id: number; apiKey: string };
};

/** The items of a list answer (a plain array, or `data` of a paginated one). */
const list = (body: unknown): { id: number }[] =>
  (Array.isArray(body) ? body : (body as { data: unknown[] }).data) as { id: number }[];
const apiOf = (i: TestServer): string => i.handle.apiUrl;
const localSockets = (i: TestServer): number => i.handle.sockets.nsp.sockets.size;

async function postTask(i: TestServer, name: string): Promise<{ id: number; resultId: number }> {
  const r = await call(apiOf(i), 'POST', '/task', {
    token: i.rootToken,
    body: {
      collaboration_id: world.collab,
      organizations: [{ id: world.orgs[0], input: Buffer.from(name).toString('base64') }],
      name,
      image: 'example/image:1',
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const results = await call(apiOf(i), 'GET', `/result?task_id=${r.body.id}`, { token: i.rootToken });
  expect(list(results.body)).toHaveLength(1);
  return { id: r.body.id as number, resultId: list(results.body)[0]!.id };
}

const resultOn = async (i: TestServer, id: number) =>
  (await call(apiOf(i), 'GET', `/result/${id}`, { token: i.rootToken })).body as {
    status: string;
    result: string | null;
    finished_at: string | null;
  };

/** The node's online periods as an instance answers them: whether each is open, and why it ended. */
const historyOn = async (i: TestServer, id: number): Promise<[boolean, string | null][]> =>
  (
    (await call(apiOf(i), 'GET', `/node/${id}/history`, { token: i.rootToken })).body as {
      ended_at: string | null;
      end_reason: string | null;
    }[]
  ).map((p) => [p.ended_at === null, p.end_reason]);

const nodeStatusOn = async (i: TestServer, id: number): Promise<string | null> =>
  ((await call(apiOf(i), 'GET', `/node/${id}`, { token: i.rootToken })).body as { status: string | null })
    .status;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'federa-scaling-'));
  db = await createTestDatabase('postgres');
  const channel = `federa-test-${process.pid}-${randomBytes(4).toString('hex')}`;
  const config = { uri: db.uri, message_broker: `${REDIS}?channel=${channel}` };
  // One after the other: the first migrates and seeds the database.
  one = await startTestServer({ dir, name: 'one', config });
  two = await startTestServer({ dir, name: 'two', config });
  balancer = await startBalancer({
    dir: join(dir, 'nginx'),
    upstreams: [one.handle.port, two.handle.port],
  });

  // A federation, made through the balancer.
  const api = `${balancer.url}/api`;
  const token = one.rootToken;
  const orgs: number[] = [];
  for (const name of ['hospital-a', 'hospital-b'])
    orgs.push((await call(api, 'POST', '/organization', { token, body: { name, country: 'NL' } })).body.id);
  // The root user's organization takes part too: users create tasks only in collaborations of their organization.
  const root = await call(api, 'GET', '/user?username=root', { token });
  const rootOrg = (list(root.body)[0] as unknown as { organization: { id: number } }).organization.id;
  const collab = (
    await call(api, 'POST', '/collaboration', {
      token,
      body: { name: 'scaling', organization_ids: [...orgs, rootOrg], encrypted: false },
    })
  ).body.id as number;
  const made = [];
  for (const org of orgs) {
    const r = await call(api, 'POST', '/node', {
      token,
      body: { collaboration_id: collab, organization_id: org },
    });
    expect(r.status).toBe(201);
    made.push({ id: r.body.id as number, apiKey: r.body.api_key as string });
  }
  world = { collab, orgs, node: made[0]!, other: made[1]! };
}, 60_000);

afterAll(async () => {
  for (const n of nodes) await n.stop();
  await balancer?.stop();
  await two?.handle.close();
  await one?.handle.close();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('two instances behind nginx, sharing PostgreSQL and Redis', () => {
  it('both report the database and the broker as reachable; the second knows it is not alone', async () => {
    for (const i of [one, two]) {
      const health = await call(apiOf(i), 'GET', '/health', { token: i.rootToken });
      expect(health.body).toMatchObject({ database: true, dialect: 'postgres', broker: true, mail: null });
      expect(i.logs.find((l) => l.event === 'broker.connected')?.broker).toMatch(
        /^redis:\/\/127\.0\.0\.1:6379 \(channel federa-test-/,
      );
    }
    expect(two.logs.find((l) => l.event === 'broker.instances')).toMatchObject({ instances: 2 });
    expect(one.logs.some((l) => l.event === 'broker.instances')).toBe(false);
  });

  it('a node connected to one instance is online on the other, and offline there once it disconnects', async () => {
    const node = new FakeNode(one.handle.url, world.other.id, world.other.apiKey);
    await node.start();
    expect(localSockets(one)).toBe(1);
    expect(localSockets(two)).toBe(0);
    await until(
      'online on two',
      () => nodeStatusOn(two, world.other.id),
      (s) => s === 'online',
    );
    await node.stop();
    await until(
      'offline on two',
      () => nodeStatusOn(two, world.other.id),
      (s) => s === 'offline',
    );
    expect(await historyOn(two, world.other.id)).toEqual([[false, 'disconnected']]);
  });

  it('a node connected through the balancer to instance A runs a task posted on instance B; after A dies it reconnects to B and loses nothing', async () => {
    const node = new FakeNode(balancer.url, world.node.id, world.node.apiKey);
    nodes.push(node);
    await node.start({ reconnectionDelayMs: 2000 });
    await until(
      'the socket to be registered',
      () => localSockets(one) + localSockets(two),
      (n) => n === 1,
    );
    const [a, b] = localSockets(one) === 1 ? [one, two] : [two, one];
    expect(localSockets(b)).toBe(0);
    await until(
      'online on B',
      () => nodeStatusOn(b, world.node.id),
      (s) => s === 'online',
    );

    // A task posted on B reaches the node's socket on A through Redis; the node runs it.
    const first = await postTask(b, 'first');
    await until(
      'the first result to complete',
      () => resultOn(b, first.resultId),
      (r) => r.status === 'completed',
    );
    expect(node.newTasks).toContain(first.id);
    expect(Buffer.from((await resultOn(b, first.resultId)).result ?? '', 'base64').toString()).toBe(
      `done-${first.resultId}`,
    );

    // Instance A dies. While the node is away, a task is posted on B: its event reaches no socket.
    await a.handle.close();
    await until(
      'the node to notice',
      () => node.disconnects,
      (n) => n === 1,
    );
    expect(node.connected).toBe(false);
    const second = await postTask(b, 'second');
    const pending = await resultOn(b, second.resultId);
    expect(pending).toMatchObject({ status: 'pending', finished_at: null });
    const open = await call(apiOf(b), 'GET', `/result?state=open&node_id=${world.node.id}`, {
      token: b.rootToken,
    });
    expect(list(open.body).map((r) => r.id)).toEqual([second.resultId]);

    // The node reconnects through the balancer, now to B, and is shown online there.
    await until(
      'the node to reconnect',
      () => node.connects,
      (n) => n === 2,
      15_000,
    );
    expect(localSockets(b)).toBe(1);
    await until(
      'online on B after the move',
      () => nodeStatusOn(b, world.node.id),
      (s) => s === 'online',
    );
    // Nothing lost: the sync after reconnecting found the open result, and the node completed it.
    await until(
      'the second result to complete',
      () => resultOn(b, second.resultId),
      (r) => r.status === 'completed',
    );
    expect(node.synced.at(-1)).toEqual([second.resultId]);
    expect(node.newTasks).not.toContain(second.id);

    // A task posted afterwards reaches it as an event.
    const third = await postTask(b, 'third');
    await until(
      'the third result to complete',
      () => resultOn(b, third.resultId),
      (r) => r.status === 'completed',
    );
    expect(node.newTasks).toContain(third.id);
    expect(await nodeStatusOn(b, world.node.id)).toBe('online');
    // The server has the report before the node has read the answer to it.
    await until(
      'the node to have the third report answered',
      () => node.completed.length,
      (n) => n === 3,
    );
    expect(node.completed).toEqual([first.resultId, second.resultId, third.resultId]);
    // Its history: online on B now, and before that on A until A stopped.
    expect(await historyOn(b, world.node.id)).toEqual([
      [true, null],
      [false, 'server_stopped'],
    ]);
  }, 60_000);
});
