import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  call,
  createTestDatabase,
  startTestServer,
  TcpProxy,
  type TestDatabase,
  type TestServer,
  until,
} from '@federa/testing';

// Always PostgreSQL, reached through a TCP proxy of the test that plays the outages (the shared PostgreSQL server
// is never touched). See docs/reliability.md, "Server and database faults".

let dir: string;
let db: TestDatabase;
let proxy: TcpProxy;
let server: TestServer;
let api: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'federa-health-fix-'));
  db = await createTestDatabase('postgres');
  const target = new URL(db.uri);
  proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
  target.host = `127.0.0.1:${proxy.port}`;
  server = await startTestServer({
    dir,
    name: 'healthfix',
    config: {
      uri: target.toString(),
      database: {
        query_timeout_ms: 800,
        connect_timeout_ms: 800,
        fix_interval_seconds: 3600,
        retry_after_seconds: 7,
      },
    },
  });
  api = server.handle.apiUrl;
});
afterAll(async () => {
  await server?.handle.close();
  await proxy?.close();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => proxy.outage(null));

const UNAVAILABLE = { msg: 'The database is unreachable at the moment; retry later.', code: 'unavailable' };

/** GET `path` as root, with the Retry-After header. */
async function get(path: string): Promise<{ status: number; body: unknown; retryAfter: string | null }> {
  const r = await fetch(`${api}${path}`, { headers: { authorization: `Bearer ${server.rootToken}` } });
  const text = await r.text();
  return { status: r.status, body: JSON.parse(text) as unknown, retryAfter: r.headers.get('retry-after') };
}

const answersAgain = () =>
  until(
    'the API answers again',
    async () => (await get('/organization')).status,
    (s) => s === 200,
    15_000,
  );

describe('/health/fix called by anyone while requests are under way', () => {
  // A server of its own, straight on PostgreSQL with the default time-outs: a busy machine must not look like an
  // outage here.
  let direct: TestServer;
  beforeAll(async () => {
    direct = await startTestServer({ dir, name: 'healthfix-direct', config: { uri: db.uri } });
  });
  afterAll(async () => direct?.handle.close());

  it('changes nothing on a pool that answers: 300 concurrent requests and 60 anonymous fixes all succeed', async () => {
    const base = direct.handle.apiUrl;
    const token = direct.rootToken;
    const fixes = Array.from({ length: 60 }, () => call(base, 'GET', '/health/fix'));
    const requests = Array.from({ length: 300 }, (_, i) =>
      call(base, 'GET', i % 2 ? '/organization' : '/collaboration', { token }).then((r) => r.status),
    );
    const statuses = await Promise.all(requests);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    for (const fix of await Promise.all(fixes))
      expect(fix).toEqual({ status: 200, body: { database: true, replaced: false, resets: 0 } });
  });
});

describe('a database reachable no more', () => {
  it('answers 503 with Retry-After (never 500) during a reset outage, and recovers by itself when it ends', async () => {
    expect((await get('/organization')).status).toBe(200);
    proxy.outage('reset');
    for (const path of ['/organization', '/task', '/result', '/user']) {
      const r = await get(path);
      expect({ path, status: r.status, body: r.body, retryAfter: r.retryAfter }).toEqual({
        path,
        status: 503,
        body: UNAVAILABLE,
        retryAfter: '7',
      });
    }
    expect((await call(api, 'GET', '/health')).body).toMatchObject({ database: false });
    proxy.outage(null);
    await answersAgain();
    // The failures were logged as the database being unreachable, not as unhandled errors.
    expect(server.logs.filter((l) => l.msg === 'unhandled error')).toEqual([]);
    expect(server.logs.some((l) => l.event === 'db.unavailable')).toBe(true);
  });

  it('answers 503 during a silent cut; /health/fix replaces the broken pool once, then is rate-limited', async () => {
    expect((await get('/organization')).status).toBe(200);
    proxy.outage('silent');
    const r = await get('/organization');
    expect(r).toEqual({ status: 503, body: UNAVAILABLE, retryAfter: '7' });
    const first = await call(api, 'POST', '/health/fix');
    expect(first).toEqual({ status: 200, body: { database: false, replaced: true, resets: 1 } });
    const second = await call(api, 'GET', '/health/fix');
    expect(second.body).toMatchObject({ database: false, replaced: false, resets: 1 });
    expect(second.body.retry_after).toBeGreaterThan(3000);
    proxy.outage(null);
    await answersAgain();
    expect(await call(api, 'GET', '/health/fix')).toEqual({
      status: 200,
      body: { database: true, replaced: false, resets: 1 },
    });
    expect(server.logs.filter((l) => l.msg === 'unhandled error')).toEqual([]);
    expect(server.logs.some((l) => l.event === 'health.fix' && l.replaced === true)).toBe(true);
  });

  it('connections a firewall froze are replaced by new ones: the API answers again without /health/fix', async () => {
    expect((await get('/organization')).status).toBe(200);
    const resets = ((await get('/health')).body as { resets: number }).resets;
    expect(proxy.freeze()).toBeGreaterThan(0);
    const failed = await get('/organization');
    expect(failed.status).toBe(503);
    await answersAgain();
    expect(((await get('/health')).body as { resets: number }).resets).toBe(resets);
  });
});
