import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import {
  AlgorithmClient,
  AlgorithmClientError,
  ProxyRequestError,
  ProxyUnreachableError,
  SubTaskTimeoutError,
} from './index.js';

const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const IDENTITY = {
  node_id: 11,
  organization_id: 2,
  collaboration_id: 7,
  task_id: 40,
  image: 'algo:1',
  database: 'db',
};
const TOKEN = `${part({ alg: 'HS256' })}.${part({ sub: IDENTITY })}.c2ln`;
const b64 = (text: string): string => Buffer.from(text).toString('base64');

/**
 * A stand-in for the node's proxy (a node cannot run in a unit test; the end-to-end tests of packages/node run
 * this client against the real proxy inside average-ts): task 99 completes on the third look, task 97 has a failed run.
 * It does not hold long-polls (like a vantage6 3.x proxy, it answers `GET /task/{id}?wait=` at once, without the
 * `x-federa-wait` header), so the client falls back to polling.
 */
let server: Server;
let port: number;
let posted: unknown[];
let polls: number;
let taskReads: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const reply = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return reply(401, { msg: 'no token' });
      if (req.method === 'POST' && req.url === '/task') {
        posted.push(JSON.parse(text));
        return reply(201, { id: 99 });
      }
      if (req.url?.startsWith('/vpn/algorithm/addresses?')) {
        const q = new URL(req.url, 'http://x').searchParams;
        const all = [
          { ip: '10.76.0.3', port: 50001, label: 'alpha', organization_id: 3, task_id: 41, parent_id: 40 },
          { ip: '10.76.0.3', port: 50002, label: 'beta', organization_id: 3, task_id: 41, parent_id: 40 },
          { ip: '10.76.0.2', port: 50003, label: 'alpha', organization_id: 2, task_id: 39, parent_id: null },
        ];
        const scope = q.get('only_children') === '1' ? 41 : q.get('only_parent') === '1' ? 39 : 40;
        const label = q.get('label');
        return reply(200, {
          addresses: all.filter((a) => a.task_id === scope && (label === null || a.label === label)),
        });
      }
      if (req.url === '/collaboration/7/organization') return reply(200, [{ id: 2 }, { id: 3 }]);
      const task = /^\/task\/(\d+)(\?.*)?$/.exec(req.url ?? '');
      if (task) taskReads.push(req.url ?? '');
      if (task?.[1] === '99') return reply(200, { id: 99, complete: ++polls >= 3 });
      if (task?.[1] === '98') return reply(200, { id: 98, complete: false });
      if (req.url === '/task/97') return reply(200, { id: 97, complete: true });
      if (req.url === '/task/99/result')
        return reply(200, [
          { id: 1, organization: 2, result: b64('json.{"sum":3}'), status: 'completed' },
          { id: 2, organization: { id: 3 }, result: b64('json.{"sum":4}'), status: 'completed' },
        ]);
      if (req.url === '/task/97/result')
        return reply(200, [{ id: 3, organization: 2, result: null, status: 'crashed', log: 'boom' }]);
      if (req.url === '/task/96/result')
        return reply(200, [
          { id: 4, organization: 2, result: b64('json.{"sum":3}'), status: 'completed' },
          { id: 5, organization: 3, result: b64('json.{"partial":1}'), status: 'crashed', log: 'half done' },
        ]);
      return reply(500, { msg: 'upstream refused the request' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  posted = [];
  polls = 0;
  taskReads = [];
});

const client = (): AlgorithmClient => new AlgorithmClient({ host: 'http://127.0.0.1', port, token: TOKEN });

describe('AlgorithmClient (algorithm-tools)', () => {
  it('is built from the container environment, synchronously', () => {
    const dir = mkdtempSync(join(tmpdir(), 'federa-tools-client-'));
    try {
      writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
      const c = AlgorithmClient.fromEnv({
        HOST: 'http://127.0.0.1',
        PORT: String(port),
        TOKEN_FILE: join(dir, 'token'),
      });
      expect(c.identity).toEqual({
        nodeId: 11,
        organizationId: 2,
        collaborationId: 7,
        taskId: 40,
        image: 'algo:1',
        database: 'db',
      });
      expect(() => AlgorithmClient.fromEnv({ HOST: 'http://x', PORT: '1' })).toThrow(/TOKEN_FILE is not set/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds the VPN addresses of its sub-tasks and its parent by label', async () => {
    const c = client();
    expect((await c.getChildAddresses('beta')).map((a) => `${a.ip}:${a.port}`)).toEqual(['10.76.0.3:50002']);
    expect(await c.getChildAddresses()).toHaveLength(2);
    expect(await c.getParentAddress('alpha')).toMatchObject({ ip: '10.76.0.2', port: 50003 });
    expect(await c.getParentAddress('beta')).toBeNull();
    expect(await c.getAddresses()).toEqual([]);
  });

  it('runs a sub-task at every organization and returns their decoded outputs', async () => {
    const c = client();
    const outputs = await c.run<{ sum: number }>({
      organizations: await c.organizationIds(),
      input: { method: 'partial', args: ['age'] },
      intervalMs: 10,
    });
    expect(outputs).toEqual([{ sum: 3 }, { sum: 4 }]);
    expect(polls).toBe(3);
    // One long-poll; its answer has no x-federa-wait header, so the client polls from then on.
    expect(taskReads.filter((u) => u.startsWith('/task/99'))).toEqual([
      '/task/99?wait=30',
      '/task/99',
      '/task/99',
    ]);
    expect(posted).toHaveLength(1);
    const input = b64('json.{"method":"partial","args":["age"],"kwargs":{},"master":false}');
    expect(posted[0]).toMatchObject({
      image: 'algo:1',
      collaboration_id: 7,
      database: 'db',
      organizations: [
        { id: 2, input },
        { id: 3, input },
      ],
    });
  });

  it('says what failed: a crashed sub-run, a refusal, a timeout, no proxy', async () => {
    await expect(client().results(97)).rejects.toThrow(
      /sub-task 97: the run of organization 2 did not succeed \(crashed\); log tail:\nboom/,
    );
    // A crashed run that left some output is still a failure, not a result.
    await expect(client().results(96)).rejects.toThrow(
      /organization 3 did not succeed \(crashed\); log tail:\nhalf done/,
    );
    const refused = await client()
      .getTask(5)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProxyRequestError);
    expect(refused).toMatchObject({
      status: 500,
      path: '/task/5',
      serverMessage: 'upstream refused the request',
    });
    await expect(client().waitForCompletion(98, { intervalMs: 10, timeoutMs: 80 })).rejects.toBeInstanceOf(
      SubTaskTimeoutError,
    );
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const nobody = new AlgorithmClient({
      host: 'http://127.0.0.1',
      port: freePort,
      token: TOKEN,
      retryForMs: 0,
    });
    const down = await nobody.organizationIds().catch((e: unknown) => e);
    expect(down).toBeInstanceOf(ProxyUnreachableError);
    expect((down as Error).message).toContain(`127.0.0.1:${freePort} (ECONNREFUSED)`);
    expect(() => new AlgorithmClient({ host: 'h', port: 1, token: 'x.y' })).toThrow(AlgorithmClientError);
  });
});

describe('a node restart under a running algorithm', () => {
  /** A proxy on `port` answering `status` to the first `failures` requests, then 200 with `{ id }`. */
  const proxyOn = async (at: number, failures: number, status: number) => {
    const seen: string[] = [];
    const proxy = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const failing = seen.length <= failures;
      res.writeHead(failing ? status : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(failing ? { msg: 'the node is restarting' } : { id: 5, complete: true }));
    });
    await new Promise<void>((resolve) => proxy.listen(at, '127.0.0.1', resolve));
    return { proxy, seen, port: (proxy.address() as AddressInfo).port };
  };
  const close = (proxy: Server) => new Promise<void>((resolve) => proxy.close(() => resolve()));

  it('tries again while the proxy answers 503, and gets the answer once it is back', async () => {
    const p = await proxyOn(0, 2, 503);
    const c = new AlgorithmClient({
      host: 'http://127.0.0.1',
      port: p.port,
      token: TOKEN,
      retryForMs: 10_000,
    });
    expect(await c.getTask(5)).toMatchObject({ id: 5 });
    expect(p.seen).toEqual(['GET /task/5', 'GET /task/5', 'GET /task/5']);
    await close(p.proxy);
  });

  it('tries again while nothing listens on the proxy address, until the proxy is back on it', async () => {
    const first = await proxyOn(0, 0, 200);
    const at = first.port;
    await close(first.proxy);
    const c = new AlgorithmClient({ host: 'http://127.0.0.1', port: at, token: TOKEN, retryForMs: 10_000 });
    const asked = c.getTask(5);
    const back = await new Promise<Awaited<ReturnType<typeof proxyOn>>>((resolve) =>
      setTimeout(() => void proxyOn(at, 0, 200).then(resolve), 600),
    );
    expect(await asked).toMatchObject({ id: 5 });
    expect(back.seen).toEqual(['GET /task/5']);
    await close(back.proxy);
  });

  it('never sends a request that changes something twice after a 502, and gives up after its time', async () => {
    const p = await proxyOn(0, 100, 502);
    const c = new AlgorithmClient({
      host: 'http://127.0.0.1',
      port: p.port,
      token: TOKEN,
      retryForMs: 10_000,
    });
    await expect(c.createTask({ input: { method: 'm' }, organizations: [2] })).rejects.toMatchObject({
      status: 502,
    });
    expect(p.seen).toHaveLength(1);
    const brief = new AlgorithmClient({
      host: 'http://127.0.0.1',
      port: p.port,
      token: TOKEN,
      retryForMs: 600,
    });
    await expect(brief.getTask(5)).rejects.toMatchObject({ status: 502 });
    expect(p.seen.length).toBeGreaterThan(2);
    await close(p.proxy);
  });
});
