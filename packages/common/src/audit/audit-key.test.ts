import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { entryHash, GENESIS_HASH } from './audit-entry.js';
import { auditKeyPath, readAuditKey } from './audit-key.js';
import { AuditLog } from './audit-log.js';
import { auditVerifyOutcome } from './audit-verdict.js';
import { canonicalJson } from './canonical-json.js';

let dir: string;
beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'federa-audit-key-')), 'audit');
});
afterEach(async () => {
  await rm(dirname(dir), { recursive: true, force: true });
});

const file = () => join(dir, 'test.jsonl');

/** A closed chain of `n` entries, returning its lines. */
async function chainOf(n: number): Promise<string[]> {
  const { log } = await AuditLog.open({ dir, chain: 'test' });
  for (let i = 1; i <= n; i++) await log.append('thing.done', { i });
  await log.close();
  return (await readFile(file(), 'utf8')).split('\n').filter(Boolean);
}

/** The entries of `lines` chained again from entry 1 with plain SHA-256, as someone without the key can. */
function rehashed(lines: string[], version: number): string[] {
  let prev = GENESIS_HASH;
  return lines.map((line, i) => {
    const { hash: _hash, ...rest } = JSON.parse(line) as Record<string, unknown>;
    const body = { ...rest, v: version, seq: i + 1, prev };
    const hash = entryHash(body);
    prev = hash;
    return canonicalJson({ ...body, hash });
  });
}

const verify = async (keyFile?: string) => auditVerifyOutcome(dir, undefined, keyFile);

describe('the audit chain is keyed', () => {
  it('keeps its key beside the log folder, readable by its owner only, and names it in every entry', async () => {
    const lines = await chainOf(2);
    const key = (await readAuditKey(auditKeyPath(dir)))!;
    expect(auditKeyPath(dir)).toBe(`${dir}.key`);
    expect((await stat(auditKeyPath(dir))).mode & 0o777).toBe(0o600);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ v: 2, keyed: key.id });
    const ok = await verify();
    expect(ok.reason).toBe('ok');
    expect(ok.text).toContain(`key ${key.id}`);
  });

  it('an entry deleted and the chain re-hashed no longer passes audit verify, whatever version the forger writes', async () => {
    const lines = await chainOf(4);
    lines.splice(1, 1);
    for (const [version, kind] of [
      [2, 'edited'],
      [1, 'unkeyed'],
    ] as const) {
      await writeFile(file(), `${rehashed(lines, version).join('\n')}\n`);
      const outcome = await verify();
      expect(outcome.reason, `as version ${version}`).toBe('tampered');
      expect(outcome.text).toContain(`FAILED: chain 'test': ${kind} at`);
    }
  });

  it('cannot be checked without its key, nor with another one', async () => {
    await chainOf(2);
    const keyFile = auditKeyPath(dir);
    const other = join(dirname(dir), 'other.key');
    await writeFile(
      other,
      `${JSON.stringify({ key: 'ab'.repeat(32), created_at: '2020-01-01T00:00:00.000Z' })}\n`,
    );
    expect((await verify(other)).text).toContain('wrong-key');
    await rm(keyFile);
    const without = await verify();
    expect(without.reason).toBe('tampered');
    expect(without.text).toContain('no-key');
  });

  it('verifies an old chain written without a key, saying it is unkeyed; a keyed writer continues it', async () => {
    const lines = rehashed(await chainOf(3), 1);
    await rm(auditKeyPath(dir)); // as before keys existed
    await writeFile(file(), `${lines.join('\n')}\n`);
    const old = await verify();
    expect(old.reason).toBe('ok');
    expect(old.text).toContain("OK (UNKEYED): chain 'test': 3 entries intact");
    expect(old.text).toContain('this chain has no key');
    // The next start makes a key and chains on from the last unkeyed entry.
    const { log } = await AuditLog.open({ dir, chain: 'test' });
    await log.append('thing.done', { i: 4 });
    await log.close();
    const continued = await verify();
    expect(continued.reason).toBe('ok');
    expect(continued.text).toContain("OK: chain 'test': 4 entries intact");
    expect(continued.text).toContain('its first 3 entries were written before the chain had a key');
  });
});
