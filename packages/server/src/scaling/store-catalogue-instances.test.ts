import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  averageDescription,
  call,
  createTestDatabase,
  digestOf,
  queriesDuring,
  startTestServer,
  until,
  type TestDatabase,
  type TestServer,
} from '@federa/testing';

// The store's kept catalogue on two real instances sharing one PostgreSQL database: a kept page goes out without
// a query, and a change committed anywhere (instance A, instance B, a psql session) reaches the listings of both,
// the writer's own at its very next read. With the notifications cut, the version is read from the database again.

let dir: string;
let db: TestDatabase;
let a: TestServer;
let b: TestServer;
let admin: pg.Client;

const storeUrl = (i: TestServer): string => `${new URL(i.handle.apiUrl).origin}/store/api`;

const names = async (i: TestServer, token?: string): Promise<string[]> => {
  const r = await call(storeUrl(i), 'GET', '/algorithm?per_page=50', token ? { token } : {});
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (r.body as { data: { name: string }[] }).data.map((x) => x.name);
};

/** How many connections of this database listen to the catalogue's notifications. */
const listeners = async (): Promise<number> =>
  Number(
    (
      await admin.query(
        `SELECT count(*) AS n FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = 'federa-store-catalogue'`,
      )
    ).rows[0].n,
  );

let seed = 0;
/** Submits and approves an algorithm through instance `i` (root reviews its own: the policy allows it here). */
async function approve(i: TestServer, name: string): Promise<void> {
  const token = i.rootToken;
  const made = await call(storeUrl(i), 'POST', '/algorithm', {
    token,
    body: averageDescription(`reg.example.org/${name}:1@${digestOf(++seed)}`, name),
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const me = await call(storeUrl(i), 'GET', '/user/me', { token });
  const review = await call(storeUrl(i), 'POST', '/review', {
    token,
    body: { algorithm_id: made.body.id, reviewer_id: me.body.id },
  });
  expect(review.status, JSON.stringify(review.body)).toBe(201);
  const approved = await call(storeUrl(i), 'POST', `/review/${review.body.id}/approve`, { token });
  expect(approved.body.algorithm_status).toBe('approved');
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'federa-store-instances-'));
  db = await createTestDatabase('postgres');
  a = await startTestServer({ dir, name: 'a', config: { uri: db.uri } });
  b = await startTestServer({ dir, name: 'b', config: { uri: db.uri } });
  admin = new pg.Client({ connectionString: db.uri });
  await admin.connect();
  const policy = await call(storeUrl(a), 'PATCH', '/policy', {
    token: a.rootToken,
    body: { min_reviewers: 1, min_reviewing_organizations: 1, assign_review_own_algorithm: true },
  });
  expect(policy.status, JSON.stringify(policy.body)).toBe(200);
  await until('both instances listening', listeners, (n) => n === 2, 10_000);
}, 60_000);

afterAll(async () => {
  await admin?.end();
  await b?.handle.close();
  await a?.handle.close();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the kept catalogue on two instances', () => {
  it('answers a kept page with no query, for anyone and for a token checked before', async () => {
    await approve(a, 'kept');
    await until(
      'B lists it',
      () => names(b),
      (n) => n.includes('kept'),
      5_000,
    );
    await names(b, b.rootToken);
    const { result, queries } = await queriesDuring(b.handle, async () => [
      await names(b),
      await names(b, b.rootToken),
    ]);
    expect(result).toEqual([['kept'], ['kept']]);
    expect(queries).toEqual([]);
  });

  it("shows a change through A at A's next read, and on B as soon as its notification arrives", async () => {
    expect(await names(b)).not.toContain('from-a');
    expect(await names(a)).not.toContain('from-a');
    await approve(a, 'from-a');
    expect(await names(a)).toContain('from-a');
    expect(
      await until(
        'B lists from-a',
        () => names(b),
        (n) => n.includes('from-a'),
        5_000,
      ),
    ).toEqual(['from-a', 'kept']);
    await approve(b, 'from-b');
    expect(await names(b)).toContain('from-b');
    await until(
      'A lists from-b',
      () => names(a),
      (n) => n.includes('from-b'),
      5_000,
    );
  });

  it('shows a change committed by another client of the database on both instances', async () => {
    expect(await names(a)).toContain('kept');
    expect(await names(b)).toContain('kept');
    await admin.query(`UPDATE store_algorithm SET name = 'renamed-by-psql' WHERE name = 'kept'`);
    for (const i of [a, b])
      await until(
        'the rename listed',
        () => names(i),
        (n) => n.includes('renamed-by-psql'),
        5_000,
      );
  });

  it('reads the version from the database while the notifications are cut, and listens again', async () => {
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'federa-store-catalogue'`,
    );
    const lost = (i: TestServer) => i.logs.filter((l) => l.event === 'store.catalogue_unheard').length;
    await until(
      'both instances know',
      () => lost(a) + lost(b),
      (n) => n === 2,
      5_000,
    );
    // No notification can arrive now: B sees the change only by reading the version.
    await admin.query(`UPDATE store_algorithm SET name = 'renamed-unheard' WHERE name = 'from-a'`);
    expect(await names(b)).toContain('renamed-unheard');
    expect(await names(a)).toContain('renamed-unheard');
    await until('both instances listening again', listeners, (n) => n === 2, 10_000);
    const back = (i: TestServer) => i.logs.some((l) => l.event === 'store.catalogue_heard');
    await until(
      'both instances hear again',
      () => back(a) && back(b),
      (ok) => ok,
      5_000,
    );
    await approve(a, 'after-reconnect');
    await until(
      'B lists after-reconnect',
      () => names(b),
      (n) => n.includes('after-reconnect'),
      5_000,
    );
  });
});
