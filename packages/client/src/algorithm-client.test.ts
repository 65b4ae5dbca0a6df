import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { AlgorithmClient, containerIdentity } from './algorithm-client.js';
import { ConnectionError, FederaApiError, FederaClientError, WaitTimeoutError } from './errors.js';

/** A JWT with the given claims; clients never verify signatures, so the signature is a dummy. */
function fakeJwt(claims: Record<string, unknown>): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}.c2lnbmF0dXJl`;
}

const IDENTITY = {
  client_type: 'container',
  node_id: 11,
  organization_id: 2,
  collaboration_id: 7,
  task_id: 40,
  image: 'harbor.example.org/algorithms/average:1',
  database: 'default',
};
const TOKEN = fakeJwt({ sub: IDENTITY, identity: IDENTITY, client_type: 'container', roles: [] });

const b64 = (text: string | Buffer): string => Buffer.from(text).toString('base64');

/**
 * A stand-in for the node's proxy (docs/container-environment.md#the-proxy-and-the-container-token): it cannot run here without a node, so this fake
 * answers the four routes the client uses, like the proxy does (results as base64 of the plaintext).
 */
interface Seen {
  method: string;
  url: string;
  auth: string | undefined;
  body: unknown;
}

let server: Server;
let port: number;
let seen: Seen[];
let polls: number;

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : null;
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      seen.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization, body });
      if (req.method === 'POST' && req.url === '/task') return reply(res, 201, { id: 99, complete: false });
      // Like a vantage6 3.x proxy, it answers `GET /task/{id}?wait=` at once and without x-federa-wait: polled.
      const task = req.method === 'GET' ? /^\/task\/(\d+)(\?.*)?$/.exec(req.url ?? '')?.[1] : undefined;
      if (task === '99') return reply(res, 200, { id: 99, complete: ++polls >= 3 });
      if (task === '98') return reply(res, 200, { id: 98, complete: false });
      if (req.method === 'GET' && req.url === '/task/99/result') {
        return reply(res, 200, [
          {
            id: 501,
            organization: 2,
            task: 99,
            result: b64('json.{"sum":30,"count":3}'),
            status: 'completed',
            log: 'ok',
          },
          {
            id: 502,
            organization: 3,
            task: 99,
            result: b64(Buffer.from([0x80, 0x04, 0x2e])),
            status: 'completed',
            log: null,
          },
          { id: 503, organization: 4, task: 99, result: null, status: 'crashed', log: 'boom' },
        ]);
      }
      if (req.method === 'GET' && req.url === '/collaboration/7/organization') {
        return reply(res, 200, [
          { id: 2, name: 'A' },
          { id: 3, name: 'B' },
        ]);
      }
      return reply(res, 500, { msg: 'upstream refused the request' });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen = [];
  polls = 0;
});

const client = (): AlgorithmClient =>
  new AlgorithmClient({ host: 'http://127.0.0.1', port, apiPath: '', token: TOKEN });

describe('containerIdentity', () => {
  it('reads the identity from `identity`, else from `sub`', () => {
    expect(containerIdentity(TOKEN)).toEqual({
      nodeId: 11,
      organizationId: 2,
      collaborationId: 7,
      taskId: 40,
      image: IDENTITY.image,
      database: 'default',
    });
    const { database: _database, ...old } = IDENTITY;
    expect(containerIdentity(fakeJwt({ sub: old })).database).toBeNull();
  });

  it('refuses user tokens', () => {
    expect(() => containerIdentity(fakeJwt({ sub: 5 }))).toThrow(/not a container token/);
    expect(() => containerIdentity('nonsense')).toThrow(FederaClientError);
  });
});

describe('AlgorithmClient against a stand-in proxy', () => {
  it('is built from the container environment', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'federa-algo-'));
    try {
      await writeFile(join(dir, 'token'), TOKEN);
      const c = await AlgorithmClient.fromEnv({
        HOST: 'http://127.0.0.1',
        PORT: String(port),
        API_PATH: '',
        TOKEN_FILE: join(dir, 'token'),
      });
      expect(c.identity.taskId).toBe(40);
      expect((await c.organizations()).map((o) => o.id)).toEqual([2, 3]);
      await expect(AlgorithmClient.fromEnv({ HOST: 'http://x', PORT: '8080' })).rejects.toThrow(/TOKEN_FILE/);
      await expect(
        AlgorithmClient.fromEnv({ HOST: 'http://x', PORT: 'eighty', TOKEN_FILE: join(dir, 'token') }),
      ).rejects.toThrow(/PORT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('creates a sub-task with base64 input and the identity of the token', async () => {
    const task = await client().createSubTask({
      organizations: [2, 3],
      input: { method: 'partial', kwargs: { c: 'age' } },
    });
    expect(task.id).toBe(99);
    const post = seen.find((s) => s.method === 'POST');
    expect(post?.auth).toBe(`Bearer ${TOKEN}`);
    const input = b64('json.{"method":"partial","kwargs":{"c":"age"}}');
    expect(post?.body).toEqual({
      name: 'subtask',
      description: 'Sub-task created by the algorithm on node 11',
      image: IDENTITY.image,
      collaboration_id: 7,
      database: 'default',
      organizations: [
        { id: 2, input },
        { id: 3, input },
      ],
    });
  });

  it('waits for completion by polling and decodes the outputs', async () => {
    const results = await client().waitForResults(99, { intervalMs: 10, timeoutMs: 5000 });
    expect(polls).toBe(3);
    expect(results[0]).toEqual({
      id: 501,
      organizationId: 2,
      output: { sum: 30, count: 3 },
      status: 'completed',
      log: 'ok',
    });
    expect([...(results[1]?.output as Buffer)]).toEqual([0x80, 0x04, 0x2e]);
    expect(results[2]).toMatchObject({ organizationId: 4, output: null, status: 'crashed' });
  });

  it('gives up after the timeout', async () => {
    await expect(client().waitForResults(98, { intervalMs: 10, timeoutMs: 100 })).rejects.toBeInstanceOf(
      WaitTimeoutError,
    );
  });

  it('reports refusals of the proxy with status and message', async () => {
    const error = await client()
      .getTask(12345)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FederaApiError);
    expect(error).toMatchObject({
      status: 500,
      serverMessage: 'upstream refused the request',
      path: '/task/12345',
    });
  });

  it('names host and port when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const c = new AlgorithmClient({ host: 'http://127.0.0.1', port: freePort, token: TOKEN, retryForMs: 0 });
    const error = await c.organizations().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain(`http://127.0.0.1:${freePort}`);
    expect((error as Error).message).toContain('ECONNREFUSED');
  });
});
