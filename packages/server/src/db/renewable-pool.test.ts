import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { createTestDatabase, TcpProxy, type TestDatabase } from '@federa/testing';
import { isConnectionError, isPoolBusy, RenewablePool } from './renewable-pool.js';

// Always PostgreSQL: replacing the pool must never cut a query under way nor strand a caller waiting for a
// connection (docs/reliability.md, "Server and database faults").

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('postgres');
});
afterAll(async () => db?.drop());

describe('renewing the pool', () => {
  it('lets a query under way finish, serves a waiting caller from the new pool, and keeps the Kysely instance usable', async () => {
    const pool = new RenewablePool({ connectionString: db.uri, max: 1, connectionTimeoutMillis: 20_000 });
    const k = new Kysely<Record<string, never>>({ dialect: new PostgresDialect({ pool }) });
    try {
      await sql`SELECT 1`.execute(k);
      // The only connection is busy for a while; a second query waits for it.
      const slow = sql<{ done: number }>`SELECT 1 AS done FROM pg_sleep(3)`.execute(k);
      await new Promise((r) => setTimeout(r, 100));
      const waiting = sql<{ n: number }>`SELECT 2 AS n`.execute(k);
      await new Promise((r) => setTimeout(r, 50));
      pool.renew();
      const order: string[] = [];
      const [a, b] = await Promise.all([
        slow.then((r) => (order.push('slow'), r)),
        waiting.then((r) => (order.push('waiting'), r)),
      ]);
      expect(a.rows).toEqual([{ done: 1 }]);
      expect(b.rows).toEqual([{ n: 2 }]);
      // The waiting query did not wait for the slow one: the new pool served it.
      expect(order).toEqual(['waiting', 'slow']);
      expect((await sql<{ n: number }>`SELECT 3 AS n`.execute(k)).rows).toEqual([{ n: 3 }]);
    } finally {
      await k.destroy();
    }
  });
});

describe('a saturated pool', () => {
  it('says no connection came free in time, not that the database is unreachable', async () => {
    const pool = new RenewablePool({ connectionString: db.uri, max: 1, connectionTimeoutMillis: 300 });
    const k = new Kysely<Record<string, never>>({ dialect: new PostgresDialect({ pool }) });
    try {
      const slow = sql`SELECT pg_sleep(1.5)`.execute(k);
      await new Promise((r) => setTimeout(r, 100));
      const error = await sql`SELECT 2`.execute(k).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isPoolBusy(error)).toBe(true);
      expect(isConnectionError(error)).toBe(false);
      expect(String(error)).toContain('no database connection came free in time');
      await slow;
      // Once the connection is free again, queries are served as before.
      expect((await sql<{ n: number }>`SELECT 3 AS n`.execute(k)).rows).toEqual([{ n: 3 }]);
    } finally {
      await k.destroy();
    }
  });

  it('still calls a database that does not answer unreachable', async () => {
    const pool = new RenewablePool({
      connectionString: 'postgres://127.0.0.1:1/none',
      max: 1,
      connectionTimeoutMillis: 300,
    });
    const k = new Kysely<Record<string, never>>({ dialect: new PostgresDialect({ pool }) });
    try {
      const error = await sql`SELECT 1`.execute(k).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isConnectionError(error)).toBe(true);
      expect(isPoolBusy(error)).toBe(false);
    } finally {
      await k.destroy();
    }
  });
});

describe('a database gone silent under a full pool', () => {
  it('is called unreachable, not busy, for the callers waiting for a connection', async () => {
    const target = new URL(db.uri);
    const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    target.host = `127.0.0.1:${proxy.port}`;
    const pool = new RenewablePool({
      connectionString: target.toString(),
      max: 1,
      connectionTimeoutMillis: 300,
      query_timeout: 3000,
    });
    const k = new Kysely<Record<string, never>>({ dialect: new PostgresDialect({ pool }) });
    try {
      await sql`SELECT 1`.execute(k);
      proxy.outage('silent');
      // The pool's one connection waits on the silent database; the next caller finds no connection free.
      const hanging = sql`SELECT 2`.execute(k).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 100));
      const error = await sql`SELECT 3`.execute(k).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isPoolBusy(error)).toBe(false);
      expect(isConnectionError(error)).toBe(true);
      expect(String(error)).toContain('the database did not answer');
      await hanging;
    } finally {
      await k.destroy().catch(() => undefined);
      await proxy.close();
    }
  });
});

describe('prepared statements (db/statement-names.ts)', () => {
  const open = (preparedStatements = true) => {
    const pool = new RenewablePool({ connectionString: db.uri, max: 1 }, undefined, preparedStatements);
    return new Kysely<Record<string, never>>({ dialect: new PostgresDialect({ pool }) });
  };
  const prepared = async (k: Kysely<Record<string, never>>) =>
    (await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(k)).rows.map(
      (r) => r.statement,
    );
  const pid = async (k: Kysely<Record<string, never>>) =>
    (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(k)).rows[0]?.pid;

  it('keeps a query run again prepared on its connection, not one run once', async () => {
    const k = open();
    try {
      const again = (n: number) => sql<{ n: number }>`SELECT ${n}::int + 1 AS n`.execute(k);
      expect((await again(1)).rows).toEqual([{ n: 2 }]);
      expect(await prepared(k)).toEqual([]);
      expect((await again(2)).rows).toEqual([{ n: 3 }]);
      expect((await again(3)).rows).toEqual([{ n: 4 }]);
      await sql`SELECT ${'once'}::text AS s`.execute(k);
      expect(await prepared(k)).toEqual(['SELECT $1::int + 1 AS n']);
    } finally {
      await k.destroy();
    }
  });

  it('prepares nothing when turned off', async () => {
    const k = open(false);
    try {
      for (let n = 0; n < 3; n++) await sql`SELECT ${n}::int AS n`.execute(k);
      expect(await prepared(k)).toEqual([]);
    } finally {
      await k.destroy();
    }
  });

  it('answers rightly when the table under a prepared statement changed, and closes that connection', async () => {
    const k = open();
    try {
      await sql`CREATE TABLE changing (a int)`.execute(k);
      await sql`INSERT INTO changing VALUES (1)`.execute(k);
      const read = () => sql`SELECT * FROM changing WHERE a = ${1}`.execute(k);
      await read();
      expect((await read()).rows).toEqual([{ a: 1 }]);
      const before = await pid(k);
      // Another instance's migration: the row type of `select *` changes under the prepared statement.
      await sql`ALTER TABLE changing ADD COLUMN b int DEFAULT 7`.execute(k);
      expect((await read()).rows).toEqual([{ a: 1, b: 7 }]);
      expect(await pid(k)).not.toBe(before);
      expect((await read()).rows).toEqual([{ a: 1, b: 7 }]);
    } finally {
      await sql`DROP TABLE IF EXISTS changing`.execute(k);
      await k.destroy();
    }
  });

  it('answers rightly when the prepared statement is gone from its connection', async () => {
    const k = open();
    try {
      const again = (n: number) => sql<{ n: number }>`SELECT ${n}::int * 2 AS n`.execute(k);
      await again(1);
      await again(2);
      expect(await prepared(k)).toEqual(['SELECT $1::int * 2 AS n']);
      // What a pooler between server and database, or a DISCARD ALL, does.
      await sql`DEALLOCATE ALL`.execute(k);
      expect((await again(5)).rows).toEqual([{ n: 10 }]);
      expect((await again(6)).rows).toEqual([{ n: 12 }]);
    } finally {
      await k.destroy();
    }
  });
});
