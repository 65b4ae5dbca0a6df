import { createHash, randomBytes } from 'node:crypto';
import type * as FsPromises from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { CompiledQuery, Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_DIALECT, createTestDatabase, startTestApp, type TestApp } from '@federa/testing';

import { DatabaseHandle } from '../db/handle.js';
import { FederaMigrations } from '../db/migrations/index.js';
import { parseDatabaseUri } from '../db/uri.js';
import { runChunksDeletion } from '../repositories/result-chunk.js';
import { DatabaseResultStore } from './database-store.js';
import { outputKey, type ResultStore } from './result-store.js';

// Every report that finishes a run without naming an upload looks for the run's uploads (remove-unnamed.ts): the
// hottest write of the API, so that look costs the same whatever the store holds (docs/large-results.md#the-result-store).

/** Every folder listed (fs.readdir, fs.opendir), by any code of this process, while `recording` is on. */
const listed = vi.hoisted(() => ({ recording: false, paths: [] as string[] }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof FsPromises>();
  const record = (path: unknown): void => {
    if (listed.recording) listed.paths.push(String(path));
  };
  const readdir = ((path: Parameters<typeof fs.readdir>[0], options?: unknown) => {
    record(path);
    return fs.readdir(path, options as undefined);
  }) as typeof fs.readdir;
  const opendir = ((path: Parameters<typeof fs.opendir>[0], options?: Parameters<typeof fs.opendir>[1]) => {
    record(path);
    return fs.opendir(path, options);
  }) as typeof fs.opendir;
  return { ...fs, readdir, opendir, default: { ...fs, readdir, opendir } };
});

const STORED = 2_000;
const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

async function* once(data: Buffer): AsyncGenerator<Buffer> {
  yield data;
}

/** `STORED` outputs of other runs, written as uploads are, a few at a time. */
async function fill(store: ResultStore): Promise<void> {
  for (let from = 0; from < STORED; from += 50)
    await Promise.all(
      Array.from({ length: Math.min(50, STORED - from) }, (_, i) => {
        const data = randomBytes(64);
        return store.put(outputKey(1_000_000 + from + i, sha(data)), once(data));
      }),
    );
}

/** A run open on its node, and that node's token. */
async function openRun(t: TestApp): Promise<{ id: number; token: string }> {
  const org = await t.fx.organization();
  const collab = await t.fx.collaboration([org]);
  const node = await t.fx.node(org, collab);
  const task = await t.fx.task(collab, [org]);
  return { id: task.resultIds[0] as number, token: await node.token() };
}

/** The small report that finishes a run (its output inline, as 3.x). */
const finish = (t: TestApp, run: { id: number; token: string }) =>
  t.api('PATCH', `/result/${run.id}`, {
    token: run.token,
    body: { status: 'completed', log: 'done', result: 'aW5saW5l', finished_at: new Date().toISOString() },
  });

describe(`with ${STORED} outputs in the folder store, a report finishing a run`, () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = resolve(await mkdtemp(join(tmpdir(), 'federa-run-lookup-')));
    t = await startTestApp({ config: { result_store: { type: 'folder', directory: dir } } });
    await fill(t.ctx.results);
  }, 60_000);
  afterAll(async () => {
    listed.recording = false;
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('without an upload, lists no folder at all (it asks whether the run has one, and it has not)', async () => {
    const run = await openRun(t);
    listed.paths = [];
    listed.recording = true;
    const answer = await finish(t, run);
    listed.recording = false;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'completed', result: 'aW5saW5l' });
    expect(listed.paths.filter((path) => path.startsWith(dir))).toEqual([]);
  });

  it('that uploaded an output it does not name, removes that upload by reading its run’s folder alone', async () => {
    const run = await openRun(t);
    const data = randomBytes(1000);
    const key = outputKey(run.id, sha(data));
    await t.ctx.results.put(key, once(data));
    listed.paths = [];
    listed.recording = true;
    const answer = await finish(t, run);
    listed.recording = false;
    expect(answer.status).toBe(200);
    expect(listed.paths.filter((path) => path.startsWith(dir))).toEqual([join(dir, `result-${run.id}`)]);
    expect(await t.ctx.results.get(key)).toBeUndefined();
    // The outputs of the other runs are all there.
    let others = 0;
    for await (const entry of t.ctx.results.list()) if (!entry.temporary) others += 1;
    expect(others).toBe(STORED);
  });
});

describe(`with ${STORED} outputs in the database store (${TEST_DIALECT})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ config: { result_store: { type: 'database' } } });
    await fill(t.ctx.results);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a report finishing a run removes the upload it does not name, and no other run’s', async () => {
    const run = await openRun(t);
    const data = randomBytes(1000);
    const key = outputKey(run.id, sha(data));
    await t.ctx.results.put(key, once(data));
    const answer = await finish(t, run);
    expect(answer.status).toBe(200);
    expect(await t.ctx.results.get(key)).toBeUndefined();
    const { n } = await t.ctx.dbh.db
      .selectFrom('result_chunk')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(STORED);
  });

  it.each([
    ['without one to keep', undefined],
    ['keeping one', outputKey(7, 'a'.repeat(64))],
  ])('finds the pieces of a run by the index on its id, %s, not by reading every piece', async (_, keep) => {
    const db = t.ctx.dbh.db;
    const query = runChunksDeletion(db, 7, keep).compile();
    const plan = await db.connection().execute(async (conn) => {
      if (t.ctx.dbh.dialect === 'sqlite') {
        const rows = await conn.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`EXPLAIN QUERY PLAN ${query.sql}`, [...query.parameters]),
        );
        return rows.rows.map((row) => row.detail).join('\n');
      }
      // However few rows the table holds, the planner takes the index when there is one it can use.
      await sql`SET enable_seqscan = off`.execute(conn);
      try {
        const rows = await conn.executeQuery<{ 'QUERY PLAN': string }>(
          CompiledQuery.raw(`EXPLAIN ${query.sql}`, [...query.parameters]),
        );
        return rows.rows.map((row) => row['QUERY PLAN']).join('\n');
      } finally {
        await sql`RESET enable_seqscan`.execute(conn);
      }
    });
    expect(plan).toContain('result_chunk_result_id');
    expect(plan).not.toMatch(/\bSCAN result_chunk\b|Seq Scan/);
  });
});

describe('the migration giving stored pieces their run', () => {
  it('gives the outputs stored before it their run, and none to temporaries', async () => {
    const testDb = await createTestDatabase();
    const dbh = new DatabaseHandle(parseDatabaseUri(testDb.uri, process.cwd()));
    try {
      const migrator = new Migrator({ db: dbh.db, provider: new FederaMigrations(dbh.dialect) });
      const before = await migrator.migrateTo('0007-stored-results');
      expect(before.error).toBeUndefined();
      const [a, b] = [outputKey(31, 'a'.repeat(64)), outputKey(32, 'b'.repeat(64))];
      const rows = [
        { key: a, seq: 0 },
        { key: a, seq: 1 },
        { key: b, seq: 0 },
        { key: `tmp-${Date.now().toString(36)}-${'0'.repeat(16)}`, seq: 0 },
      ];
      // Written by the earlier version: no run column yet.
      await dbh.db
        .insertInto('result_chunk')
        .values(rows.map((row) => ({ ...row, data: randomBytes(10) })))
        .execute();
      await dbh.migrate();
      const runs = await dbh.db
        .selectFrom('result_chunk')
        .select(['key', 'seq', 'result_id'])
        .orderBy('key')
        .orderBy('seq')
        .execute();
      expect(
        runs.map((row) => [row.key, row.seq, row.result_id === null ? null : Number(row.result_id)]),
      ).toEqual([
        [a, 0, 31],
        [a, 1, 31],
        [b, 0, 32],
        [rows[3]!.key, 0, null],
      ]);
      const store = new DatabaseResultStore(() => dbh.db);
      await store.deleteRunOutputs(31);
      expect(await store.get(a)).toBeUndefined();
      expect((await store.get(b))?.size).toBe(10);
    } finally {
      await dbh.close();
      await testDb.drop();
    }
  });
});
