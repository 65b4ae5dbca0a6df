import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

import { DatabaseResultStore } from './database-store.js';
import { FolderResultStore } from './folder-store.js';
import { ResultStoreFullError, outputKey, type ResultStore } from './result-store.js';

let t: TestApp;
let dir: string;

beforeAll(async () => {
  t = await startTestApp();
  dir = await mkdtemp(join(tmpdir(), 'federa-result-store-'));
});

afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

/** `data` in pieces of uneven sizes, as an upload arrives. */
async function* pieces(data: Buffer, failAt?: number): AsyncGenerator<Buffer> {
  for (let at = 0, i = 0; at < data.length; i += 1) {
    if (failAt !== undefined && at >= failAt) throw new Error('the upload was cut');
    const size = [65_536, 1, 300_001, 7][i % 4]!;
    yield data.subarray(at, at + size);
    at += size;
  }
}

const stores: [string, () => ResultStore][] = [
  ['folder', () => new FolderResultStore(dir)],
  ['database', () => new DatabaseResultStore(() => t.ctx.dbh.db)],
];

describe.each(stores)('the %s result store', (_kind, make) => {
  it('gives back, as a stream, the bytes written from a stream', async () => {
    const store = make();
    const data = randomBytes(3 * 1024 * 1024 + 17);
    const key = outputKey(1, 'a'.repeat(64));
    expect(await store.put(key, pieces(data))).toBe(data.length);
    const object = await store.get(key);
    expect(object?.size).toBe(data.length);
    expect((await buffer(object!.stream)).equals(data)).toBe(true);
    await store.delete(key);
    expect(await store.get(key)).toBeUndefined();
    await store.delete(key);
  });

  it('keeps nothing of an upload cut short, and leaves what the key held', async () => {
    const store = make();
    const key = outputKey(2, 'b'.repeat(64));
    const first = randomBytes(10_000);
    await store.put(key, pieces(first));
    const cut = store.put(key, pieces(randomBytes(2 * 1024 * 1024), 1024 * 1024));
    await expect(cut).rejects.toThrow('the upload was cut');
    expect(await buffer((await store.get(key))!.stream)).toEqual(first);
    expect(await store.get(outputKey(3, 'b'.repeat(64)))).toBeUndefined();
    const again = randomBytes(1_500_000);
    await store.put(key, pieces(again));
    expect((await buffer((await store.get(key))!.stream)).equals(again)).toBe(true);
  });

  it("removes a result's other objects, and only that result's", async () => {
    const store = make();
    const keys = ['c', 'd', 'e'].map((c) => outputKey(40, c.repeat(64)));
    const neighbours = [outputKey(4, 'c'.repeat(64)), outputKey(400, 'c'.repeat(64))];
    for (const key of [...keys, ...neighbours]) await store.put(key, pieces(Buffer.from(key)));
    await store.deleteRunOutputs(40, keys[1]!);
    expect(await store.get(keys[0]!)).toBeUndefined();
    expect(await store.get(keys[2]!)).toBeUndefined();
    expect((await buffer((await store.get(keys[1]!))!.stream)).toString()).toBe(keys[1]);
    for (const key of neighbours) expect((await store.get(key))?.size).toBe(key.length);
    // Without one to keep, every output of the run goes; a run with none is no error.
    await store.deleteRunOutputs(40);
    expect(await store.get(keys[1]!)).toBeUndefined();
    await store.deleteRunOutputs(40);
    await store.deleteRunOutputs(41);
    for (const key of neighbours) expect((await store.get(key))?.size).toBe(key.length);
    // What to keep must be an output of that run; the run an id.
    await expect(store.deleteRunOutputs(4, keys[1]!)).rejects.toThrow(TypeError);
    await expect(store.deleteRunOutputs(40, '../x')).rejects.toThrow(TypeError);
    await expect(store.deleteRunOutputs(0)).rejects.toThrow(TypeError);
    await expect(store.deleteRunOutputs(1.5)).rejects.toThrow(TypeError);
    for (const key of neighbours) await store.delete(key);
  });

  it.each(['../etc/passwd', 'a/b', '.tmp-x', '', 'A', '/abs', 'x'.repeat(129), 'a\u0000b'])(
    'refuses the key %j',
    async (key) => {
      const store = make();
      await expect(store.put(key, pieces(Buffer.from('x')))).rejects.toThrow(TypeError);
      await expect(store.get(key)).rejects.toThrow(TypeError);
      await expect(store.delete(key)).rejects.toThrow(TypeError);
    },
  );
});

describe('the folder result store', () => {
  it("writes only inside its folder, in the run's own folder, and leaves no temporary file behind", async () => {
    const own = await mkdtemp(join(tmpdir(), 'federa-result-folder-'));
    try {
      const store = new FolderResultStore(own);
      const key = outputKey(9, 'f'.repeat(64));
      await store.put(key, pieces(Buffer.from('whole')));
      await store
        .put(outputKey(9, '0'.repeat(64)), pieces(randomBytes(100_000), 50_000))
        .catch(() => undefined);
      expect(await readdir(own)).toEqual(['result-9']);
      expect(await readdir(join(own, 'result-9'))).toEqual([key]);
      // The run's folder goes with its last output.
      await store.delete(key);
      expect(await readdir(own)).toEqual([]);
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });

  it('takes only the keys of outputs: a run id and a checksum', async () => {
    const store = new FolderResultStore(dir);
    for (const key of ['result-9-x', 'result-9', 'other', `result-0-${'a'.repeat(64)}`])
      await expect(store.put(key, pieces(Buffer.from('x')))).rejects.toThrow(TypeError);
  });

  it('reads, lists and removes outputs of the earlier layout, and moves them into their runs at start', async () => {
    const own = await mkdtemp(join(tmpdir(), 'federa-result-layout-'));
    try {
      // The earlier layout: one file per output at the top of the folder.
      const [a, b, c] = [
        outputKey(11, 'a'.repeat(64)),
        outputKey(11, 'b'.repeat(64)),
        outputKey(12, 'c'.repeat(64)),
      ];
      for (const key of [a, b, c]) await writeFile(join(own, key), key);
      await writeFile(join(own, 'README'), 'not an output');
      const store = new FolderResultStore(own);
      // Before the move (an instance of an earlier version sharing the folder wrote them): read, listed, removed.
      expect((await buffer((await store.get(a))!.stream)).toString()).toBe(a);
      const listed: string[] = [];
      for await (const entry of store.list()) listed.push(entry.name);
      expect(listed.sort()).toEqual([a, b, c].sort());
      await store.delete(b);
      expect(await store.get(b)).toBeUndefined();

      await store.prepare();
      expect((await readdir(own)).sort()).toEqual([
        '.layout-run-folders',
        'README',
        'result-11',
        'result-12',
      ]);
      expect(await readdir(join(own, 'result-11'))).toEqual([a]);
      expect((await buffer((await store.get(c))!.stream)).toString()).toBe(c);
      await store.deleteRunOutputs(11);
      expect(await store.get(a)).toBeUndefined();
      expect((await readdir(own)).sort()).toEqual(['.layout-run-folders', 'README', 'result-12']);

      // Once moved, a start does not look through the folder again.
      await writeFile(join(own, a), 'written at the top by an earlier version');
      await store.prepare();
      expect((await readdir(own)).sort()).toEqual(['.layout-run-folders', 'README', a, 'result-12']);
      expect((await buffer((await store.get(a))!.stream)).toString()).toBe(
        'written at the top by an earlier version',
      );
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });

  it('says the store is full when the disk is, and keeps nothing of the upload', async () => {
    const small = await mkdtemp(join(tmpdir(), 'federa-result-full-'));
    // A real full disk: a 1 MiB tmpfs (the tests run as root on this project's machines, as Docker does).
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', small]);
    try {
      const store = new FolderResultStore(small);
      await writeFile(join(small, 'other'), 'x');
      const full = await store
        .put(outputKey(10, 'e'.repeat(64)), pieces(randomBytes(4 * 1024 * 1024)))
        .catch((e: unknown) => e);
      expect(full).toBeInstanceOf(ResultStoreFullError);
      expect((full as Error).message).toContain('is full (ENOSPC)');
      expect(await readdir(small)).toEqual(['other']);
    } finally {
      execFileSync('umount', [small]);
      await rm(small, { recursive: true, force: true });
    }
  });
});
