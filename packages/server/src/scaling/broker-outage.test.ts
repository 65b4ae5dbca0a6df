import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  call,
  createTestDatabase,
  FakeNode,
  freePort,
  ROOT_PASSWORD,
  type TestDatabase,
  until,
} from '@federa/testing';

// A Redis outage under two real instances: each instance is a `vserver-local start` process, on one PostgreSQL
// database and a Redis server of this test alone (killed and started again here). A node (FakeNode, a socket
// client doing what the node daemon does) is connected to the second instance; a task is posted on the first.

const BIN = join(dirname(fileURLToPath(import.meta.url)), '../../dist/bin/vserver-local.js');

interface Instance {
  name: string;
  api: string;
  proc: ChildProcess;
  logs: Record<string, unknown>[];
  exited: number | string | null;
  token: string;
}

let dir: string;
let db: TestDatabase;
let redisPort: number;
let redis: ChildProcess | null = null;
const instances: Instance[] = [];
let node: FakeNode | null = null;

const tcpAnswers = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

async function startRedis(): Promise<void> {
  redis = spawn(
    'redis-server',
    ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  await until('Redis to listen', () => tcpAnswers(redisPort), Boolean, 10_000);
}

async function killRedis(): Promise<void> {
  const r = redis;
  if (!r || r.exitCode !== null) return;
  const gone = new Promise((resolve) => r.once('exit', resolve));
  r.kill('SIGKILL');
  await gone;
  redis = null;
}

async function startInstance(name: string): Promise<Instance> {
  const port = await freePort();
  const file = join(dir, `${name}.yaml`);
  const prod = {
    ip: '127.0.0.1',
    port,
    uri: db.uri,
    message_broker: `redis://127.0.0.1:${redisPort}?channel=outage`,
    jwt_secret_key: 'broker-outage-test-secret-long-enough',
    bcrypt_rounds: 4,
    root_user: { email: 'root@example.org', password: ROOT_PASSWORD },
    directories: { data: join(dir, `${name}-data`), log: join(dir, `${name}-log`) },
    logging: { level: 'INFO', use_console: true },
    password_policy: { max_failed_attempts_per_address: 1000 },
  };
  writeFileSync(file, JSON.stringify({ application: {}, environments: { prod } }));
  const proc = spawn(process.execPath, [BIN, 'start', '-c', file, '-e', 'prod'], {
    env: { ...process.env, HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const instance: Instance = {
    name,
    api: `http://127.0.0.1:${port}/api`,
    proc,
    logs: [],
    exited: null,
    token: '',
  };
  let rest = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      try {
        instance.logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a log line
      }
    }
  });
  proc.stderr?.resume();
  proc.once('exit', (code, signal) => (instance.exited = code ?? signal));
  instances.push(instance);
  await until(
    `${name} to answer`,
    async () => {
      if (instance.exited !== null) throw new Error(`${name} exited (${instance.exited}) while starting`);
      return (await fetch(`${instance.api}/health`).catch(() => null))?.status;
    },
    (s) => s === 200,
    60_000,
    200,
  );
  const login = await call(instance.api, 'POST', '/token/user', {
    body: { username: 'root', password: ROOT_PASSWORD },
  });
  instance.token = (login.body as { access_token: string }).access_token;
  return instance;
}

const alive = (i: Instance): boolean => {
  if (i.exited !== null) throw new Error(`instance ${i.name} exited (${i.exited})`);
  return true;
};

/** The root's `/health` answer of a running instance (fails at once when the instance has exited). */
const health = async (i: Instance) => {
  alive(i);
  return (await call(i.api, 'GET', '/health', { token: i.token })).body as { broker: boolean | null };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'federa-broker-outage-'));
  db = await createTestDatabase('postgres');
  redisPort = await freePort();
  await startRedis();
}, 30_000);

afterAll(async () => {
  await node?.stop();
  for (const i of instances) {
    if (i.exited !== null) continue;
    const gone = new Promise((resolve) => i.proc.once('exit', resolve));
    i.proc.kill('SIGTERM');
    await gone;
  }
  await killRedis();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('a Redis outage under two instances', () => {
  it('keeps both instances up, reports the broker down, and delivers a task posted meanwhile once Redis is back', async () => {
    // One after the other: the first migrates and seeds the database.
    const one = await startInstance('one');
    const two = await startInstance('two');
    const token = one.token;
    const org = (
      await call(one.api, 'POST', '/organization', { token, body: { name: 'h-a', country: 'NL' } })
    ).body.id as number;
    const rootOrg = (
      (await call(one.api, 'GET', '/user?username=root', { token })).body as {
        organization: { id: number };
      }[]
    )[0]!.organization.id;
    const collab = (
      await call(one.api, 'POST', '/collaboration', {
        token,
        body: { name: 'outage', organization_ids: [org, rootOrg], encrypted: false },
      })
    ).body.id as number;
    const made = await call(one.api, 'POST', '/node', {
      token,
      body: { collaboration_id: collab, organization_id: org },
    });
    expect(made.status).toBe(201);
    node = new FakeNode(two.api.replace(/\/api$/, ''), made.body.id as number, made.body.api_key as string);
    await node.start({ reconnectionDelayMs: 500 });
    await until(
      'the node online on one',
      async () => (await call(one.api, 'GET', `/node/${made.body.id}`, { token })).body.status,
      (s) => s === 'online',
    );

    await killRedis();
    for (const i of [one, two])
      await until(
        `${i.name} to report the broker down`,
        () => health(i),
        (h) => h.broker === false,
      );

    // A task posted on one during the outage: its event cannot reach two's socket.
    const posted = await call(one.api, 'POST', '/task', {
      token,
      body: {
        collaboration_id: collab,
        organizations: [{ id: org, input: Buffer.from('x').toString('base64') }],
        name: 'during the outage',
        image: 'example/image:1',
      },
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    const resultId = (
      (await call(one.api, 'GET', `/result?task_id=${posted.body.id}`, { token })).body as { id: number }[]
    )[0]!.id;
    // The event's publication fails once the Redis client gives up on it; the instance says so and stays up.
    await until(
      'one to log the lost event',
      () => alive(one) && one.logs.some((l) => l.event === 'broker.events_lost'),
      Boolean,
      30_000,
    );
    for (const i of [one, two]) {
      alive(i);
      expect((await health(i)).broker).toBe(false);
    }
    expect(node.newTasks).not.toContain(posted.body.id);
    expect((await call(two.api, 'GET', `/result/${resultId}`, { token })).body.status).toBe('pending');

    // Redis is back: both instances say so, and the node of two learns of the task and runs it.
    await startRedis();
    for (const i of [one, two])
      await until(
        `${i.name} to report the broker back`,
        () => health(i),
        (h) => h.broker === true,
        30_000,
      );
    await until(
      'the run to complete',
      async () =>
        alive(one) && alive(two) && (await call(two.api, 'GET', `/result/${resultId}`, { token })).body,
      (r) => (r as { status: string }).status === 'completed',
      30_000,
    );
    expect(node.completed).toEqual([resultId]);
    expect(two.logs.some((l) => l.event === 'broker.resync')).toBe(true);
    expect(one.logs.find((l) => l.event === 'broker.reconnected')?.events_lost).toBeGreaterThanOrEqual(1);
    for (const i of [one, two])
      expect(i.logs.filter((l) => l.level === 'fatal' || l.level === 'error')).toEqual([]);
  }, 150_000);
});
