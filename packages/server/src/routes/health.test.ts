import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startTestApp, TEST_DIALECT, TEST_PG_ADMIN_URI, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('database health', () => {
  it('tells anonymous callers only whether the database answers and the version', async () => {
    const r = await t.api('GET', '/health');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ database: true, version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    // A bad token is no error here, and reveals nothing more.
    const bad = await t.api('GET', '/health', { token: 'not-a-token' });
    expect(bad.body).toEqual(r.body);
  });

  it('tells the root user the dialect, broker, mail server and pool; not a user without every rule', async () => {
    const r = await t.api('GET', '/health', { token: t.rootToken });
    expect(r.body).toMatchObject({
      database: true,
      dialect: TEST_DIALECT,
      broker: null,
      mail: null,
      resets: 0,
    });
    if (TEST_DIALECT === 'postgres') expect(r.body.pool).toMatchObject({ total: expect.any(Number) });
    else expect(r.body.pool).toBeNull();
    const org = await t.fx.organization();
    const user = await t.fx.user(org, { rules: ['organization.v_glo', 'user.v_glo'] });
    const token = await t.login(user.username, user.password);
    expect(Object.keys((await t.api('GET', '/health', { token })).body).sort()).toEqual([
      'database',
      'version',
    ]);
  });

  it('/health/fix leaves a pool that answers as it is', async () => {
    const fix = await t.api('GET', '/health/fix');
    expect(fix).toMatchObject({ status: 200, body: { database: true, replaced: false, resets: 0 } });
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
