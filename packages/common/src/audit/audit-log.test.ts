import { mkdtemp, readFile, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from './audit-log.js';
import { AuditLockedError } from './audit-lock.js';
import { verifyChain } from './audit-verify.js';
import { verifyAuditPath } from './audit-verify-path.js';
import { canonicalJson } from './canonical-json.js';
import { GENESIS_HASH } from './audit-entry.js';
import { auditKeyPath, readAuditKey } from './audit-key.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-audit-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(auditKeyPath(dir), { force: true });
});

/** A closed chain of `n` entries in `dir`, returning its current file's lines. */
async function chainOf(n: number, options: { maxFileBytes?: number } = {}): Promise<string[]> {
  const { log } = await AuditLog.open({ dir, chain: 'test', ...options });
  for (let i = 1; i <= n; i++) await log.append('thing.done', { i, who: { kind: 'user', id: i } });
  await log.close();
  return (await readFile(join(dir, 'test.jsonl'), 'utf8')).split('\n').filter(Boolean);
}

const rewrite = (lines: string[]): Promise<void> =>
  writeFile(join(dir, 'test.jsonl'), `${lines.join('\n')}\n`);

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 'x'], c: null }, u: undefined })).toBe(
      '{"a":{"c":null,"d":[1,"x"]},"b":1}',
    );
  });

  it('gives every value a form that its parsed copy gives again: non-finite numbers, bigints, functions', () => {
    const value = { i: Infinity, m: -Infinity, n: Number.NaN, b: 2n ** 70n, f: () => 1, s: Symbol('s') };
    const text = canonicalJson(value);
    expect(text).toBe(
      '{"b":"1180591620717411303424","f":null,"i":"Infinity","m":"-Infinity","n":"NaN","s":null}',
    );
    expect(canonicalJson(JSON.parse(text))).toBe(text);
  });
});

describe('an audit chain', () => {
  it('links every entry to the one before and verifies', async () => {
    const lines = await chainOf(5);
    const entries = lines.map((l) => JSON.parse(l) as { seq: number; prev: string; hash: string });
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(entries[0]?.prev).toBe(GENESIS_HASH);
    for (let i = 1; i < entries.length; i++) expect(entries[i]?.prev).toBe(entries[i - 1]?.hash);
    const [report] = await verifyAuditPath(dir);
    expect(report).toMatchObject({ chain: 'test', entries: 5, last: { seq: 5, hash: entries[4]?.hash } });
    expect(report?.problem).toBeUndefined();
  });

  it('finds an edited entry', async () => {
    const lines = await chainOf(4);
    lines[2] = (lines[2] ?? '').replace('"id":3', '"id":7');
    await rewrite(lines);
    const [report] = await verifyAuditPath(dir);
    expect(report?.problem).toMatchObject({ line: 3, kind: 'edited' });
    expect(report?.entries).toBe(2);
  });

  it('finds an entry edited with its hash recomputed: the next one no longer follows it', async () => {
    const { entryHash } = await import('./audit-entry.js');
    const lines = await chainOf(4);
    const key = (await readAuditKey(auditKeyPath(dir)))!;
    const forged = { ...(JSON.parse(lines[1] ?? '') as Record<string, unknown>), i: 99 };
    // Even with the key, the entry after it names the old hash.
    lines[1] = canonicalJson({ ...forged, hash: entryHash(forged, key) });
    await rewrite(lines);
    const [report] = await verifyAuditPath(dir);
    expect(report?.problem).toMatchObject({ line: 3, kind: 'broken-link' });
  });

  it('finds a removed entry', async () => {
    const lines = await chainOf(4);
    lines.splice(1, 1);
    await rewrite(lines);
    const [report] = await verifyAuditPath(dir);
    expect(report?.problem).toMatchObject({ line: 2, kind: 'missing' });
    expect(report?.problem?.reason).toMatch(/entry 2 is missing/);
  });

  it('finds reordered entries', async () => {
    const lines = await chainOf(4);
    [lines[1], lines[2]] = [lines[2] ?? '', lines[1] ?? ''];
    await rewrite(lines);
    const [report] = await verifyAuditPath(dir);
    expect(report?.problem).toMatchObject({ line: 2, kind: 'out-of-order' });
    expect(report?.problem?.reason).toMatch(/entry 3 comes before entry 2 \(line 3\)/);
    lines.splice(1, 2, lines[2] ?? '', lines[2] ?? '');
    await rewrite(lines);
    const [again] = await verifyAuditPath(dir);
    expect(again?.problem).toMatchObject({ line: 3, kind: 'out-of-order' });
  });

  it('finds a truncated last entry, and a reopened log takes it out and records it', async () => {
    const lines = await chainOf(3);
    const file = join(dir, 'test.jsonl');
    await writeFile(file, `${lines.join('\n')}\n${(lines[2] ?? '').slice(0, 20)}`);
    const [report] = await verifyAuditPath(dir);
    expect(report?.problem).toMatchObject({ line: 4, kind: 'truncated' });
    const { log, cutOff } = await AuditLog.open({ dir, chain: 'test' });
    expect(cutOff).toBe((lines[2] ?? '').slice(0, 20));
    await log.append('audit.opened', { cut_off: cutOff });
    await log.close();
    const [after] = await verifyAuditPath(dir);
    expect(after?.problem).toBeUndefined();
    expect(after?.last?.seq).toBe(4);
  });

  it('rotates into new files without breaking the chain, and notices a removed rotated file', async () => {
    await chainOf(40, { maxFileBytes: 1500 });
    const files = (await readdir(dir)).filter((f) => f.endsWith('.jsonl')).sort();
    expect(files.length).toBeGreaterThan(2);
    expect(files).toContain('test.000000000001.jsonl');
    const first = (await readFile(join(dir, 'test.jsonl'), 'utf8')).split('\n')[0] ?? '';
    expect(JSON.parse(first)).toMatchObject({ event: 'audit.rotated' });
    const [report] = await verifyAuditPath(dir);
    expect(report?.problem).toBeUndefined();
    // 40 entries plus one rotation marker per rotated file.
    expect(report?.entries).toBe(40 + files.length - 1);
    // A reopened log continues the chain in the current file.
    const { log } = await AuditLog.open({ dir, chain: 'test', maxFileBytes: 1500 });
    await log.append('thing.done', { i: 41 });
    await log.close();
    expect((await verifyAuditPath(dir))[0]?.problem).toBeUndefined();
    // One rotated file alone checks as a partial chain.
    const middle = files[1] ?? '';
    expect((await verifyAuditPath(join(dir, middle)))[0]?.problem).toBeUndefined();
    await rm(join(dir, middle));
    const [gap] = await verifyAuditPath(dir);
    expect(gap?.problem).toMatchObject({ kind: 'missing', line: 1 });
  });

  it('settles every append, however appends and other awaits interleave', async () => {
    const { log } = await AuditLog.open({ dir, chain: 'test' });
    for (let i = 0; i < 60; i++) {
      await log.append('thing.done', { i });
      // A few microtask turns between one entry written and the next append: the writer must not miss it.
      for (let k = 0; k < i % 6; k++) await Promise.resolve();
      if (i % 2) await log.ensureWritable();
    }
    await log.close();
    expect((await verifyAuditPath(dir))[0]?.entries).toBe(60);
  });

  it('goes on at its path when the file it had open was moved away or deleted', async () => {
    const { log } = await AuditLog.open({ dir, chain: 'test' });
    const file = join(dir, 'test.jsonl');
    await log.append('thing.done', { i: 1 });
    await rename(file, join(dir, 'moved-away.txt'));
    await log.append('thing.done', { i: 2 });
    await rm(file);
    await log.append('thing.done', { i: 3 });
    await log.append('thing.done', { i: 4 });
    await log.close();
    const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    expect(lines.map((l) => JSON.parse(l) as { seq: number }).map((e) => e.seq)).toEqual([3, 4]);
    const moved = (await readFile(join(dir, 'moved-away.txt'), 'utf8')).split('\n').filter(Boolean);
    expect(moved.map((l) => JSON.parse(l) as { seq: number }).map((e) => e.seq)).toEqual([1]);
  });

  it('refuses a second writer of the same chain', async () => {
    const { log } = await AuditLog.open({ dir, chain: 'test' });
    await expect(AuditLog.open({ dir, chain: 'test' })).rejects.toBeInstanceOf(AuditLockedError);
    await log.close();
    const { log: again } = await AuditLog.open({ dir, chain: 'test' });
    await again.close();
  });

  it('rejects entries it cannot write, goes on from the last entry written and records the loss', async () => {
    const { log } = await AuditLog.open({ dir, chain: 'test' });
    await log.append('thing.done', { i: 1 });
    const file = join(dir, 'test.jsonl');
    const kept = await readFile(file, 'utf8');
    await rm(file);
    await symlink('/dev/full', file);
    const results = await Promise.allSettled([
      log.append('thing.done', { i: 2 }),
      log.append('thing.done', { i: 3 }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(log.failure?.message).toMatch(/ENOSPC/);
    expect(await log.ensureWritable()).toBe(false);
    await rm(file);
    await writeFile(file, kept);
    expect(await log.ensureWritable()).toBe(true);
    expect(log.failure).toBeUndefined();
    await log.close();
    const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    expect(JSON.parse(lines[1] ?? '')).toMatchObject({ seq: 2, event: 'audit.resumed', lost_entries: 2 });
    const report = await verifyChain('test', [file], { key: await readAuditKey(auditKeyPath(dir)) });
    expect(report.problem).toBeUndefined();
  });
});
