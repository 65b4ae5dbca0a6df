/**
 * The proxy's transformations. The upstream here is a small recording HTTP server standing in for the API
 * (it shows exactly what the proxy sends, which the real server cannot); the e2e test runs the proxy against
 * the real server.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DummyCryptor, RsaCryptor, generatePrivateKeyPem, type Cryptor } from '@federa/common';

import { startProxy, type RunningProxy } from './proxy-server.js';

interface Seen {
  method: string;
  url: string;
  auth: string | undefined;
  body: string;
}

let upstream: Server;
let base: string;
const seen: Seen[] = [];
let orgKeys: Record<number, string> = {};
let master: RsaCryptor;
let other: RsaCryptor;
let flaky = 0;

beforeAll(async () => {
  master = new RsaCryptor(await generatePrivateKeyPem({ modulusBits: 2048 }));
  other = new RsaCryptor(await generatePrivateKeyPem({ modulusBits: 2048 }));
  orgKeys = { 1: master.publicKeyBase64, 2: other.publicKeyBase64 };
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization, body });
      const url = req.url ?? '';
      const json = (status: number, value: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      let m: RegExpMatchArray | null;
      if ((m = url.match(/^\/api\/organization\/(\d+)$/)))
        return json(200, { id: Number(m[1]), public_key: orgKeys[Number(m[1])] ?? '' });
      if (url === '/api/task' && req.method === 'POST') return json(201, { id: 99 });
      if (url.startsWith('/api/task/5/result')) {
        return json(200, [
          {
            id: 1,
            result: master.encryptBytesToString(Buffer.from('json.{"sum":3}'), master.publicKeyBase64),
            input: 'x',
          },
          { id: 2, result: null },
          { id: 3, result: 'garbage$$' },
        ]);
      }
      if (url === '/api/result/7')
        return json(200, {
          id: 7,
          result: master.encryptBytesToString(Buffer.from([1, 2, 3]), master.publicKeyBase64),
        });
      if (url === '/api/result/8')
        return json(200, { id: 8, result: null, result_stored: { size: 1, sha256: 'x' } });
      if (url === '/api/result/8/output') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end(
          master.encryptBytesToString(Buffer.from('json.{"large":true}'), master.publicKeyBase64),
        );
      }
      if (url === '/api/flaky')
        return flaky++ < 2 ? json(503, { msg: 'busy' }) : json(200, { ok: true, tries: flaky });
      if (url === '/api/missing') return json(404, { msg: 'no such thing' });
      if ((m = url.match(/^\/v4\/api\/organization\/(\d+)$/)))
        return json(200, { id: Number(m[1]), public_key: orgKeys[Number(m[1])] ?? '', runs: '/v4/api/run' });
      if (url === '/v4/api/task' && req.method === 'POST') return json(201, { id: 100, job_id: 4 });
      if (url.startsWith('/v4/api/result?'))
        return json(200, {
          data: [
            { id: 1, result: master.encryptBytesToString(Buffer.from('{"sum":3}'), master.publicKeyBase64) },
            { id: 2, result: null },
            // An output held in the server's result store, as the 4.x surface shows it: a blob.
            { id: 3, result: 'a1b2c3d4-0000-0000-0000-000000000003', blob_storage_used: true },
          ],
          links: { self: '/v4/api/result?task_id=5&page=1' },
        });
      if (url === '/v4/api/blobstream/a1b2c3d4-0000-0000-0000-000000000003') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end(master.encryptBytesToString(Buffer.from('{"large":true}'), master.publicKeyBase64));
      }
      return json(200, { echo: url, method: req.method, body });
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/api`;
});

afterAll(async () => {
  await new Promise<void>((r) => upstream.close(() => r()));
});

async function withProxy(
  cryptor: Cryptor,
  fn: (url: string, p: RunningProxy) => Promise<void>,
): Promise<void> {
  const p = await startProxy({
    apiBase: base,
    cryptor,
    log: pino({ level: 'silent' }),
    host: '127.0.0.1',
    port: 0,
  });
  try {
    await fn(`http://127.0.0.1:${p.port}`, p);
  } finally {
    await p.close();
  }
}

const auth = { authorization: 'Bearer container-token' };

describe('local proxy', () => {
  it("encrypts each organization's sub-task input for that organization, with the container's header", async () => {
    await withProxy(master, async (url) => {
      seen.length = 0;
      const input = Buffer.from('json.{"method":"partial"}').toString('base64');
      const res = await fetch(`${url}/task`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 's',
          image: 'img',
          collaboration_id: 1,
          organizations: [
            { id: 1, input },
            { id: 2, input },
          ],
        }),
      });
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({ id: 99 });
      expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
        'GET /api/organization/1',
        'GET /api/organization/2',
        'POST /api/task',
      ]);
      expect(seen.every((s) => s.auth === 'Bearer container-token')).toBe(true);
      const posted = JSON.parse(seen[2]!.body) as {
        name: string;
        organizations: { id: number; input: string }[];
      };
      expect(posted.name).toBe('s');
      const [a, b] = posted.organizations;
      expect(a!.input.split('$')).toHaveLength(3);
      expect(master.decryptStringToBytes(a!.input).toString()).toBe('json.{"method":"partial"}');
      expect(other.decryptStringToBytes(b!.input).toString()).toBe('json.{"method":"partial"}');
      expect(() => master.decryptStringToBytes(b!.input)).toThrow();
    });
  });

  it('forwards sub-task input unchanged when the collaboration is not encrypted, and refuses a task without organizations', async () => {
    await withProxy(new DummyCryptor(), async (url) => {
      seen.length = 0;
      await fetch(`${url}/task`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ organizations: [{ id: 2, input: 'aGk=' }] }),
      });
      expect(seen.map((s) => s.url)).toEqual(['/api/task']);
      expect(JSON.parse(seen[0]!.body)).toEqual({ organizations: [{ id: 2, input: 'aGk=' }] });
      const bad = await fetch(`${url}/task`, { method: 'POST', headers: auth, body: '{}' });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { msg: string }).msg).toMatch(/organizations/);
    });
  });

  it('decrypts results to base64 of the plaintext and leaves undecryptable ones unchanged', async () => {
    await withProxy(master, async (url) => {
      const list = (await (await fetch(`${url}/task/5/result?page=1`, { headers: auth })).json()) as {
        id: number;
        result: string | null;
        input?: string;
      }[];
      expect(Buffer.from(list[0]!.result!, 'base64').toString()).toBe('json.{"sum":3}');
      expect(list[0]!.input).toBe('x');
      expect(list[1]!.result).toBeNull();
      expect(list[2]!.result).toBe('garbage$$');
      expect(seen.at(-1)!.url).toBe('/api/task/5/result?page=1');
      const one = (await (await fetch(`${url}/result/7`, { headers: auth })).json()) as { result: string };
      expect([...Buffer.from(one.result, 'base64')]).toEqual([1, 2, 3]);
      // An output held in the server's result store reaches the algorithm as any other (docs/large-results.md).
      const stored = (await (await fetch(`${url}/result/8`, { headers: auth })).json()) as { result: string };
      expect(Buffer.from(stored.result, 'base64').toString()).toBe('json.{"large":true}');
      expect(seen.at(-1)).toMatchObject({ url: '/api/result/8/output', auth: 'Bearer container-token' });
    });
  });

  it('forwards other calls with status and body unchanged, retrying a failing server up to 3 times', async () => {
    await withProxy(master, async (url) => {
      const echo = await fetch(`${url}/collaboration/3/organization?x=1`, {
        method: 'PATCH',
        headers: { ...auth, 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      expect(await echo.json()).toEqual({
        echo: '/api/collaboration/3/organization?x=1',
        method: 'PATCH',
        body: '{"a":1}',
      });
      const missing = await fetch(`${url}/missing`, { headers: auth });
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ msg: 'no such thing' });
      flaky = 0;
      const f = await fetch(`${url}/flaky`, { headers: auth });
      expect(f.status).toBe(200);
      expect(await f.json()).toEqual({ ok: true, tries: 3 });
    });
  });

  it('answers 500 with a message when the server cannot be reached', async () => {
    const p = await startProxy({
      apiBase: 'http://127.0.0.1:9/api',
      cryptor: master,
      log: pino({ level: 'silent' }),
      host: '127.0.0.1',
      port: 0,
      attempts: 2,
    });
    try {
      const res = await fetch(`http://127.0.0.1:${p.port}/task/1`, { headers: auth });
      expect(res.status).toBe(500);
      expect(((await res.json()) as { msg: string }).msg).toMatch(/could not reach the server/);
    } finally {
      await p.close();
    }
  });
});

describe('a stored output read over a slow link', () => {
  // Small limits: one call may take 300 ms; the trickling server takes about 1.2 s for the whole output.
  const LIMIT_MS = 300;
  const text = (): string =>
    master.encryptBytesToString(
      Buffer.from(`json.${JSON.stringify({ big: 'x'.repeat(20_000) })}`),
      master.publicKeyBase64,
    );
  let slow: Server;
  let slowBase: string;
  let output: Buffer;
  const open = new Set<NodeJS.Timeout>();

  beforeAll(async () => {
    output = Buffer.from(text(), 'latin1');
    const sha256 = createHash('sha256').update(output).digest('hex');
    slow = createServer((req, res) => {
      const url = req.url ?? '';
      const m = /^\/api\/result\/(\d+)(\/output)?$/.exec(url);
      if (!m) return void res.writeHead(404).end();
      if (!m[2]) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(
          JSON.stringify({ id: Number(m[1]), result: null, result_stored: { size: output.length, sha256 } }),
        );
      }
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': output.length,
        'x-federa-sha256': sha256,
      });
      // 20 pieces, one every 60 ms: never idle for the limit, four times longer than it in all. Result 31 stalls
      // after the first half and sends nothing more.
      const pieces = 20;
      const size = Math.ceil(output.length / pieces);
      let sent = 0;
      const timer = setInterval(() => {
        if (m[1] === '31' && sent >= pieces / 2) return;
        res.write(output.subarray(sent * size, (sent + 1) * size));
        sent += 1;
        if (sent === pieces) {
          clearInterval(timer);
          open.delete(timer);
          res.end();
        }
      }, 60);
      open.add(timer);
      res.on('close', () => {
        clearInterval(timer);
        open.delete(timer);
      });
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    slowBase = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/api`;
  });
  afterAll(async () => {
    for (const timer of open) clearInterval(timer);
    slow.closeAllConnections();
    await new Promise<void>((r) => slow.close(() => r()));
  });

  async function through(
    id: number,
    lines: Record<string, unknown>[],
  ): Promise<{ ms: number; body: unknown }> {
    const p = await startProxy({
      apiBase: slowBase,
      cryptor: master,
      log: pino(
        { level: 'warn' },
        { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) },
      ),
      host: '127.0.0.1',
      port: 0,
      requestTimeoutMs: LIMIT_MS,
    });
    try {
      const started = Date.now();
      const res = await fetch(`http://127.0.0.1:${p.port}/result/${id}`, { headers: auth });
      expect(res.status).toBe(200);
      return { body: await res.json(), ms: Date.now() - started };
    } finally {
      await p.close();
    }
  }

  it('reaches the algorithm whole while bytes keep coming, however long past the time limit of a call', async () => {
    const lines: Record<string, unknown>[] = [];
    const { body, ms } = await through(30, lines);
    expect(ms).toBeGreaterThan(3 * LIMIT_MS);
    const result = (body as { result: string }).result;
    expect(Buffer.from(result, 'base64').toString()).toBe(
      `json.${JSON.stringify({ big: 'x'.repeat(20_000) })}`,
    );
    expect(lines).toEqual([]);
  });

  it('is given up when no byte comes for the time limit, with a note naming why; the result passes on without it', async () => {
    const lines: Record<string, unknown>[] = [];
    const { body } = await through(31, lines);
    expect(body).toMatchObject({ id: 31, result: null, result_stored: { size: output.length } });
    const half = Math.ceil(output.length / 20) * 10;
    expect(lines).toEqual([
      expect.objectContaining({
        event: 'proxy.output_unread',
        result_id: 31,
        reason: `no byte came for ${LIMIT_MS} ms (after ${half} bytes), at each of 3 attempts`,
        msg: `cannot read the stored output of result 31: no byte came for ${LIMIT_MS} ms (after ${half} bytes), at each of 3 attempts; passing the result on without it`,
      }),
    ]);
  });

  it("answers a vantage6 4.x algorithm (API_PATH=/v4) from the server's 4.x surface, in 4.x shapes", async () => {
    await withProxy(master, async (url) => {
      seen.length = 0;
      const input = Buffer.from('{"method":"partial_average"}').toString('base64');
      const created = await fetch(`${url}/v4/task`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ collaboration_id: 1, organizations: [{ id: 2, input }], databases: [] }),
      });
      expect(await created.json()).toEqual({ id: 100, job_id: 4 });
      const posted = JSON.parse(seen.find((x) => x.method === 'POST')!.body) as {
        organizations: { input: string }[];
      };
      expect(other.decryptStringToBytes(posted.organizations[0]!.input).toString()).toBe(
        '{"method":"partial_average"}',
      );
      // A 4.x algorithm reads its sub-tasks' results as a listing; each is decrypted for it.
      const listing = (await (
        await fetch(`${url}/v4/result?task_id=5&page=1`, { headers: auth })
      ).json()) as {
        data: { id: number; result: string | null; blob_storage_used?: boolean }[];
        links: Record<string, string>;
      };
      expect(listing.links).toEqual({ self: '/v4/api/result?task_id=5&page=1' });
      expect(Buffer.from(listing.data[0]!.result!, 'base64').toString()).toBe('{"sum":3}');
      expect(listing.data[1]!.result).toBeNull();
      // A stored output is read from /blobstream and given to the algorithm inline, decrypted.
      expect(listing.data[2]!.blob_storage_used).toBe(false);
      expect(Buffer.from(listing.data[2]!.result!, 'base64').toString()).toBe('{"large":true}');
      const status = await fetch(`${url}/v4/task/5/status`, { headers: auth });
      expect(await status.json()).toMatchObject({ echo: '/v4/api/task/5/status' });
      expect(seen.map((x) => `${x.method} ${x.url}`)).toEqual([
        'GET /v4/api/organization/2',
        'POST /v4/api/task',
        'GET /v4/api/result?task_id=5&page=1',
        'GET /v4/api/blobstream/a1b2c3d4-0000-0000-0000-000000000003',
        'GET /v4/api/task/5/status',
      ]);
      // A 3.x algorithm's paths are untouched.
      expect(await (await fetch(`${url}/organization/9`, { headers: auth })).json()).toMatchObject({
        public_key: '',
      });
    });
  });
});
