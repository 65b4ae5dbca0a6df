import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../test-support/database.js';
import { TcpProxy } from '../scaling/tcp-proxy.js';
import { call, startInstance, type TestInstance } from '../scaling/test-instance.js';

// Always PostgreSQL: the failure is a connection pool whose connections a firewall dropped silently.
// (PostgreSQL terminating its backends is healed by the pool on its own: see health.test.ts.)

let dir: string;
let db: TestDatabase;
let proxy: TcpProxy;
let server: TestInstance;
let api: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'federa-health-fix-'));
  db = await createTestDatabase('postgres');
  const target = new URL(db.uri);
  proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
  target.host = `127.0.0.1:${proxy.port}`;
  server = await startInstance(dir, 'healthfix', {
    uri: target.toString(),
    database: { query_timeout_ms: 800 },
  });
  api = server.handle.apiUrl;
});
afterAll(async () => {
  await server?.handle.close();
  await proxy?.close();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('/health/fix after the database connections were dropped silently', () => {
  it('requests fail with the generic 500 (no SQL, no hang), /health says so, /health/fix restores the connection', async () => {
    const token = server.rootToken;
    const before = await call(api, 'GET', '/organization', { token });
    expect(before.status).toBe(200);
    expect(await call(api, 'GET', '/health')).toMatchObject({
      status: 200,
      body: { database: true, dialect: 'postgres', broker: null, mail: null },
    });

    // A firewall drops the idle connections of the pool: nothing more arrives on them, and nobody is told.
    expect(proxy.freeze()).toBeGreaterThan(0);

    const started = Date.now();
    const failed = await call(api, 'GET', '/organization', { token });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({
      msg: 'An internal server error occurred. The administrator can find details in the server log.',
      code: 'internal',
    });
    expect(JSON.stringify(failed.body)).not.toMatch(/select|timeout|postgres|organization"/i);
    // It keeps failing: the pool hands out the same dead connections again.
    expect((await call(api, 'GET', '/organization', { token })).status).toBe(500);
    expect((await call(api, 'GET', '/health')).body).toMatchObject({ database: false });

    const fix = await call(api, 'GET', '/health/fix');
    expect(fix).toEqual({ status: 200, body: { database: true, resets: 1 } });

    const after = await call(api, 'GET', '/organization', { token });
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
    expect((await call(api, 'GET', '/health')).body).toMatchObject({ database: true });
    // POST works as well and counts the resets.
    expect(await call(api, 'POST', '/health/fix')).toEqual({
      status: 200,
      body: { database: true, resets: 2 },
    });
    expect(server.logs.some((l) => l.event === 'health.fix' && l.database === true)).toBe(true);
  });
});
