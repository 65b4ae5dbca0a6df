import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

import { DatabaseResultStore } from './database-store.js';
import { FolderResultStore } from './folder-store.js';
import { outputKey, type ResultStore } from './result-store.js';
import { sweepResultStore } from './sweep.js';

let t: TestApp;
let dir: string;

beforeAll(async () => {
  t = await startTestApp();
  dir = await mkdtemp(join(tmpdir(), 'federa-sweep-'));
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');
const IDLE_MS = 1000;
const HOUR = 3_600_000;

async function* once(data: Buffer): AsyncGenerator<Buffer> {
  yield data;
}

/** Runs in every state an upload can be left in, each with an upload of its own (real bytes in the store). */
async function world(store: ResultStore) {
  const db = t.ctx.dbh.db;
  const org = await t.fx.organization();
  const collab = await t.fx.collaboration([org]);
  const task = async () => (await t.fx.task(collab, [org])).resultIds[0]!;
  const [open, named, unnamed, killed, reported, deleted] = [
    await task(),
    await task(),
    await task(),
    await task(),
    await task(),
    await task(),
  ];
  const uploads: Record<string, { key: string; bytes: number }> = {};
  const upload = async (label: string, id: number, bytes: number): Promise<string> => {
    const data = randomBytes(bytes);
    const key = outputKey(id, sha(data));
    await store.put(key, once(data));
    uploads[label] = { key, bytes };
    return sha(data);
  };
  const finished = { finished_at: '2026-01-01T00:00:00.000000' };
  await upload('open', open, 1000);
  const namedSha = await upload('named', named, 1100);
  await db
    .updateTable('result')
    .set({ ...finished, status: 'completed', log: 'ok', result_sha256: namedSha, result_size: 1100 })
    .where('id', '=', named)
    .execute();
  // An earlier upload of the same run that the report did not name.
  await upload('named-earlier', named, 1200);
  await upload('unnamed', unnamed, 1300);
  await db
    .updateTable('result')
    .set({ ...finished, status: 'failed', log: 'crashed after the upload' })
    .where('id', '=', unnamed)
    .execute();
  // Killed: the run takes no upload any more, so none of its uploads will be named.
  await upload('killed', killed, 1400);
  await db
    .updateTable('result')
    .set({ ...finished, status: 'killed by user' })
    .where('id', '=', killed)
    .execute();
  // Finished with an inline output: nothing of the store is its output.
  await upload('reported', reported, 1500);
  await db
    .updateTable('result')
    .set({ ...finished, status: 'completed', result: 'aW5saW5l', log: '' })
    .where('id', '=', reported)
    .execute();
  // Deleted while the server was down.
  await upload('deleted', deleted, 1600);
  await db.deleteFrom('result').where('id', '=', deleted).execute();
  // Of a run this database never had (a store shared with another database): not this sweep's to judge.
  await upload('unknown', 2_000_000_000, 1700);
  return { uploads, ids: { open, named, unnamed, killed, reported, deleted } };
}

const names = async (store: ResultStore): Promise<string[]> => {
  const all: string[] = [];
  for await (const entry of store.list()) all.push(entry.name);
  return all.sort();
};

describe.each([
  ['folder', () => new FolderResultStore(dir)],
  ['database', () => new DatabaseResultStore(() => t.ctx.dbh.db)],
] as const)('the start-up sweep of the %s store', (kind, make) => {
  it('removes the uploads no run will name (of killed, finished and deleted runs), keeps those of open runs and every named output', async () => {
    const store = make();
    const { uploads } = await world(store);
    const before = await names(store);
    const report = await sweepResultStore({
      db: () => t.ctx.dbh.db,
      dialect: t.ctx.dbh.dialect,
      store,
      startedMs: Date.now(),
      alone: true,
      idleMs: IDLE_MS,
    });
    const gone = ['named-earlier', 'unnamed', 'killed', 'reported', 'deleted'];
    expect(report).toMatchObject({
      removed: gone.length,
      temporaries_removed: 0,
      bytes_freed: gone.reduce((sum, label) => sum + uploads[label]!.bytes, 0),
      kept_for_open_runs: 1,
      kept_unknown_runs: 1,
      stopped: false,
    });
    const kept = ['open', 'named', 'unknown'].map((label) => uploads[label]!.key);
    expect(await names(store)).toEqual(
      before.filter((name) => !gone.some((label) => uploads[label]!.key === name)).sort(),
    );
    for (const key of kept) expect((await store.get(key))?.size).toBeGreaterThan(0);
    for (const label of gone) expect(await store.get(uploads[label]!.key)).toBeUndefined();
    // The named output reads back whole.
    const named = await store.get(uploads.named!.key);
    expect((await buffer(named!.stream)).length).toBe(1100);

    // A second sweep finds nothing more to do.
    const again = await sweepResultStore({
      db: () => t.ctx.dbh.db,
      dialect: t.ctx.dbh.dialect,
      store,
      startedMs: Date.now(),
      alone: true,
      idleMs: IDLE_MS,
    });
    expect(again).toMatchObject({ removed: 0, temporaries_removed: 0, bytes_freed: 0 });
    for (const key of kept) await store.delete(key);
  });

  it('removes the temporaries of writes cut by a stop, and keeps those another instance may still be writing', async () => {
    const store = make();
    const started = Date.now();
    const leftovers: string[] = [];
    const under = async (name: string, bytes: number, writtenMs: number): Promise<string> => {
      if (kind === 'folder') {
        await writeFile(join(dir, name), randomBytes(bytes));
        await utimes(join(dir, name), writtenMs / 1000, writtenMs / 1000);
      } else {
        await t.ctx.dbh.db
          .insertInto('result_chunk')
          .values({ key: name, seq: 0, data: randomBytes(bytes) })
          .execute();
      }
      return name;
    };
    const key = outputKey(123_456, 'c'.repeat(64));
    const hex = () => randomBytes(8).toString('hex');
    // Written before this server started: cut by the server that stopped.
    leftovers.push(
      kind === 'folder'
        ? await under(`.tmp-${hex()}-${key}`, 700, started - HOUR)
        : await under(`tmp-${(started - HOUR).toString(36)}-${hex()}`, 700, 0),
    );
    if (kind === 'database') leftovers.push(await under(`tmp-${hex()}`, 300, 0)); // the form before times
    // Begun after this server started: an upload under way.
    const live =
      kind === 'folder'
        ? await under(`.tmp-${hex()}-${key}`, 500, started + 10)
        : await under(`tmp-${(started + 10).toString(36)}-${hex()}`, 500, 0);

    // With another instance running, a temporary may be its upload under way: only one no byte reached for
    // longer than any server waits for them goes (the folder tells the time of the last write; the database not).
    const shared = await sweepResultStore({
      db: () => t.ctx.dbh.db,
      dialect: t.ctx.dbh.dialect,
      store,
      startedMs: started,
      alone: false,
      idleMs: IDLE_MS,
    });
    if (kind === 'folder') {
      expect(shared).toMatchObject({ temporaries_removed: 1, temporaries_kept: 1, bytes_freed: 700 });
      expect(await names(store)).toEqual([live]);
      return;
    }
    expect(shared).toMatchObject({ temporaries_removed: 0, temporaries_kept: 3, bytes_freed: 0 });
    const alone = await sweepResultStore({
      db: () => t.ctx.dbh.db,
      dialect: t.ctx.dbh.dialect,
      store,
      startedMs: started,
      alone: true,
      idleMs: IDLE_MS,
    });
    expect(alone).toMatchObject({ temporaries_removed: 2, temporaries_kept: 1, bytes_freed: 1000 });
    expect(await names(store)).toEqual([live]);
    await store.remove({ name: live, temporary: true });
  });
});

describe('the start-up sweep', () => {
  it('leaves alone what the store does not know as an output', async () => {
    const own = await mkdtemp(join(tmpdir(), 'federa-sweep-foreign-'));
    try {
      await writeFile(join(own, 'README'), 'not an output');
      await writeFile(join(own, 'result-7-notahash'), 'not an output either');
      await writeFile(join(own, '.tmp-nothex-result-7'), 'nor a temporary of the store');
      const report = await sweepResultStore({
        db: () => t.ctx.dbh.db,
        dialect: t.ctx.dbh.dialect,
        store: new FolderResultStore(own),
        startedMs: Date.now() + HOUR,
        alone: true,
        idleMs: IDLE_MS,
      });
      expect(report).toMatchObject({ removed: 0, temporaries_removed: 0, bytes_freed: 0 });
      expect((await readdir(own)).sort()).toEqual(['.tmp-nothex-result-7', 'README', 'result-7-notahash']);
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });

  it('stops between two entries when the server closes, and removes nothing after', async () => {
    const own = await mkdtemp(join(tmpdir(), 'federa-sweep-stop-'));
    const store = new FolderResultStore(own);
    const orphan = outputKey(987_654_321, 'd'.repeat(64));
    await store.put(orphan, once(Buffer.from('of a run that is gone')));
    const stop = new AbortController();
    stop.abort();
    const report = await sweepResultStore({
      db: () => t.ctx.dbh.db,
      dialect: t.ctx.dbh.dialect,
      store,
      startedMs: Date.now(),
      alone: true,
      idleMs: IDLE_MS,
      signal: stop.signal,
    });
    expect(report).toMatchObject({ stopped: true, removed: 0 });
    expect((await store.get(orphan))?.size).toBe('of a run that is gone'.length);
    await rm(own, { recursive: true, force: true });
  });
});
