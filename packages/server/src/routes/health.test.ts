import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startTestApp, type TestApp } from '../test-support/harness.js';
import { TEST_DIALECT, TEST_PG_ADMIN_URI } from '../test-support/database.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('database health', () => {
  it('reports the database and the dialect', async () => {
    const r = await t.api('GET', '/health');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ database: true, dialect: TEST_DIALECT });
  });
});

describe('PostgreSQL dropping connections (always against PostgreSQL)', () => {
  let p: TestApp;
  beforeAll(async () => {
    p = await startTestApp({ dialect: 'postgres' });
  });
  afterAll(async () => p.close());

  it('keeps answering when PostgreSQL terminates all its connections, and /health/fix renews the pool', async () => {
    const t = p;
    // Warm the pool, then have PostgreSQL terminate every connection of this test's database.
    expect((await t.api('GET', '/organization', { token: t.rootToken })).status).toBe(200);
    const dbName = new URL(t.db.uri).pathname.slice(1);
    const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URI });
    await admin.connect();
    const killed = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1',
      [dbName],
    );
    expect(killed.rowCount).toBeGreaterThan(0);
    // pg_terminate_backend only signals: wait until the backends are gone (their notice is then on its way).
    for (let i = 0; i < 100; i++) {
      const left = await admin.query('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [
        dbName,
      ]);
      if (Number(left.rows[0].n) === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await admin.end();
    // The pool notices the terminated connections and opens new ones: no request fails.
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await t.api('GET', '/organization', { token: t.rootToken })).status);
    expect(statuses).toEqual([200, 200, 200]);
    const fix = await t.api('GET', '/health/fix');
    expect(fix.status).toBe(200);
    expect(fix.body.database).toBe(true);
    expect((await t.api('GET', '/organization', { token: t.rootToken })).status).toBe(200);
  });
});
