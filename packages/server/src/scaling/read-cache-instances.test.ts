import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  call,
  createTestDatabase,
  queriesDuring,
  startTestServer,
  type TestDatabase,
  type TestServer,
} from '@federa/testing';

// The read cache on two real instances sharing one fresh PostgreSQL database (and the Redis at 127.0.0.1:6379, as
// deployed): an answer kept on instance B must never outlive a change committed through instance A, or by
// anything else that writes to the database.

/** The items of a list answer (a plain array, or `data` of a paginated one). */
const list = (body: unknown): { id: number }[] =>
  (Array.isArray(body) ? body : (body as { data: unknown[] }).data) as { id: number }[];

const REDIS = process.env.FEDERA_TEST_REDIS ?? 'redis://127.0.0.1:6379';

let dir: string;
let db: TestDatabase;
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'federa-read-cache-instances-'));
  db = await createTestDatabase('postgres');
  const channel = `federa-test-${process.pid}-${randomBytes(4).toString('hex')}`;
  const config = { uri: db.uri, message_broker: `${REDIS}?channel=${channel}` };
  a = await startTestServer({ dir, name: 'a', config });
  b = await startTestServer({ dir, name: 'b', config });
}, 60_000);

afterAll(async () => {
  await b?.handle.close();
  await a?.handle.close();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const hits = (i: TestServer): number => {
  const cache = i.handle.ctx.readCache;
  if (!cache) throw new Error('the read cache is off');
  return cache.stats.hits;
};

const nameOn = async (i: TestServer, org: number): Promise<string> => {
  const r = await call(i.handle.apiUrl, 'GET', `/organization/${org}`, { token: i.rootToken });
  expect(r.status).toBe(200);
  return (r.body as { name: string }).name;
};

/**
 * Reads with `read` until an answer comes from the cache of `i` (other databases on the same PostgreSQL server move
 * the clock too, so a hit may take a few tries); returns what the read that hit gave.
 */
async function untilCached<T>(i: TestServer, read: () => Promise<T>): Promise<T> {
  for (let tries = 0; tries < 200; tries++) {
    const before = hits(i);
    const value = await read();
    if (hits(i) > before) return value;
  }
  throw new Error('the read cache never answered');
}

/** Reads the organization on `i` until an answer comes from its cache; returns the name it showed. */
const cachedNameOn = (i: TestServer, org: number): Promise<string> => untilCached(i, () => nameOn(i, org));

async function newOrganization(name: string): Promise<number> {
  const r = await call(a.handle.apiUrl, 'POST', '/organization', { token: a.rootToken, body: { name } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as number;
}

describe('read cache on two instances sharing PostgreSQL', () => {
  it('is on with PostgreSQL', () => {
    expect(a.handle.ctx.readCache).not.toBeNull();
    expect(b.handle.ctx.readCache).not.toBeNull();
  });

  it('shows a change made through instance A at the next read on instance B', async () => {
    const org = await newOrganization('before-a');
    expect(await cachedNameOn(b, org)).toBe('before-a');
    const patch = await call(a.handle.apiUrl, 'PATCH', `/organization/${org}`, {
      token: a.rootToken,
      body: { name: 'after-a' },
    });
    expect(patch.status).toBe(200);
    expect(await nameOn(b, org)).toBe('after-a');
  });

  it('shows every one of many changes through A at the very next read on B', async () => {
    const org = await newOrganization('round-0');
    expect(await cachedNameOn(b, org)).toBe('round-0');
    for (let round = 1; round <= 20; round++) {
      const patch = await call(a.handle.apiUrl, 'PATCH', `/organization/${org}`, {
        token: a.rootToken,
        body: { name: `round-${round}` },
      });
      expect(patch.status).toBe(200);
      expect(await nameOn(b, org)).toBe(`round-${round}`);
      expect(await nameOn(b, org)).toBe(`round-${round}`);
    }
  });

  it('shows a change committed by another client of the database (no Federa instance involved)', async () => {
    const org = await newOrganization('before-psql');
    expect(await cachedNameOn(b, org)).toBe('before-psql');
    expect(await cachedNameOn(a, org)).toBe('before-psql');
    const other = new pg.Client({ connectionString: db.uri });
    await other.connect();
    try {
      await other.query('UPDATE organization SET name = $1 WHERE id = $2', ['after-psql', org]);
    } finally {
      await other.end();
    }
    expect(await nameOn(b, org)).toBe('after-psql');
    expect(await nameOn(a, org)).toBe('after-psql');
  });

  it('applies a permission taken away on A to the next read on B', async () => {
    const org = await newOrganization('rules-org');
    const role = await call(a.handle.apiUrl, 'GET', '/role?name=Researcher', { token: a.rootToken });
    expect(role.status).toBe(200);
    const user = await call(a.handle.apiUrl, 'POST', '/user', {
      token: a.rootToken,
      body: {
        username: `cache-${randomBytes(3).toString('hex')}`,
        email: `cache-${randomBytes(3).toString('hex')}@example.org`,
        password: 'Password123!xyz',
        firstname: 'C',
        lastname: 'Ache',
        organization_id: org,
        roles: [list(role.body)[0]!.id],
      },
    });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    const login = await call(b.handle.apiUrl, 'POST', '/token/user', {
      body: { username: user.body.username, password: 'Password123!xyz' },
    });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const token = login.body.access_token as string;
    const read = () => call(b.handle.apiUrl, 'GET', `/organization/${org}`, { token });
    let cached = false;
    for (let tries = 0; tries < 200 && !cached; tries++) {
      const before = hits(b);
      expect((await read()).status).toBe(200);
      cached = hits(b) > before;
    }
    expect(cached).toBe(true);
    const strip = await call(a.handle.apiUrl, 'PATCH', `/user/${user.body.id}`, {
      token: a.rootToken,
      body: { roles: [] },
    });
    expect(strip.status, JSON.stringify(strip.body)).toBe(200);
    expect((await read()).status).toBe(401);
  });
});

describe('the clock of the read cache on PostgreSQL', () => {
  it("reads it once for a caller's first GET, which records when the caller was last seen", async () => {
    const org = await newOrganization('seen-once');
    const username = `seen-${randomBytes(3).toString('hex')}`;
    const user = await call(a.handle.apiUrl, 'POST', '/user', {
      token: a.rootToken,
      body: {
        username,
        email: `${username}@example.org`,
        password: 'Password123!xyz',
        firstname: 'S',
        lastname: 'Een',
        organization_id: org,
        roles: [],
      },
    });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    const login = await call(b.handle.apiUrl, 'POST', '/token/user', {
      body: { username, password: 'Password123!xyz' },
    });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const token = login.body.access_token as string;
    const { result: me, queries: seen } = await queriesDuring({ ctx: b.handle.ctx }, () =>
      call(b.handle.apiUrl, 'GET', `/user/${user.body.id}`, { token }),
    );
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body.username).toBe(username);
    // The caller's first request records last_seen, after the reading that came with the caller: the answer is
    // computed without a second reading (and not kept, since the database changed after the first).
    expect(seen.some((q) => /^update "user" set "last_seen"/.test(q))).toBe(true);
    expect(seen.filter((q) => q.includes('pg_current_snapshot()'))).toHaveLength(1);
    // Read again, the answer is kept and then given from memory.
    const again = await untilCached(b, async () => {
      const r = await call(b.handle.apiUrl, 'GET', `/user/${user.body.id}`, { token });
      expect(r.status).toBe(200);
      return (r.body as { username: string }).username;
    });
    expect(again).toBe(username);
  });

  it('is read in the same query as the caller of a first GET, and not at all by a write', async () => {
    const org = await newOrganization('one-round-trip');
    expect(await cachedNameOn(b, org)).toBe('one-round-trip');
    // Every query of the instance's database handle, and every look at its clock on its own.
    const seen: string[] = [];
    const dbh = b.handle.ctx.dbh;
    const original = dbh.db.executeQuery.bind(dbh.db);
    dbh.db.executeQuery = ((query: { sql: string }, ...rest: unknown[]) => {
      seen.push(query.sql);
      return (original as (...a: unknown[]) => unknown)(query, ...rest);
    }) as typeof dbh.db.executeQuery;
    const clock = dbh.changes as { now: () => unknown };
    const now = clock.now.bind(clock);
    let readings = 0;
    clock.now = () => {
      readings += 1;
      return now();
    };
    try {
      // A write keeps no answer: it reads no clock (a reading is a round trip of its own).
      const patch = await call(b.handle.apiUrl, 'PATCH', `/organization/${org}`, {
        token: b.rootToken,
        body: { name: 'patched-on-b' },
      });
      expect(patch.status).toBe(200);
      expect(readings).toBe(0);
      expect(seen.filter((q) => q.includes('pg_current_snapshot()'))).toEqual([]);
      // The first read after it: the reading comes with the caller, in the query that loads the user.
      seen.length = 0;
      expect(await nameOn(b, org)).toBe('patched-on-b');
      expect(readings).toBe(0);
      expect(seen.filter((q) => q.includes('pg_current_snapshot()') && q.includes('"session"'))).toHaveLength(
        1,
      );
      // The same read again: its answer is kept, so the clock alone is read (a trivial query) and nothing else
      // (unless a commit elsewhere on the same PostgreSQL server moved the clock meanwhile: then it is computed afresh).
      seen.length = 0;
      const hitsBefore = hits(b);
      expect(await nameOn(b, org)).toBe('patched-on-b');
      if (hits(b) > hitsBefore) {
        expect(readings).toBe(1);
        expect(seen).toEqual([]);
      }
    } finally {
      dbh.db.executeQuery = original;
      clock.now = now;
    }
  });
});
