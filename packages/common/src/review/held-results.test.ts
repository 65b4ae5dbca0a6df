import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import {
  listHeldResults,
  readHeldOutput,
  removeHeldResult,
  writeHeldResult,
  writeReviewDecision,
  type HeldResult,
} from './held-results.js';

const dirs: string[] = [];
const root = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'federa-held-'));
  dirs.push(d);
  return join(d, 'review');
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const held = (id: number): HeldResult => ({
  version: 1,
  result_id: id,
  task_id: 5,
  run_id: 6,
  image: 'reg/count:1',
  function: 'partial',
  initiating_organization_id: 2,
  initiating_user_id: 7,
  collaboration_id: 1,
  held_at: '2026-01-01T00:00:00.000Z',
  expires_at: '2026-01-08T00:00:00.000Z',
  held_because: ['users: 7'],
  checks: ['min_cell_count'],
  suppressed: false,
  log: 'counted\n',
  output_bytes: 12,
});

describe('held results', () => {
  it('are kept whole, read back by a fresh reader, and leave no temporary folder', async () => {
    const dir = root();
    await writeHeldResult(dir, held(12), Buffer.from('json.{"t":[5]}'));
    await writeHeldResult(dir, held(3), Buffer.from('json.{}'));
    const listed = await listHeldResults(dir);
    expect(listed.map((e) => [e.held.result_id, e.decision])).toEqual([
      [3, undefined],
      [12, undefined],
    ]);
    expect((await readHeldOutput(dir, 12)).toString()).toBe('json.{"t":[5]}');
    expect(readdirSync(dir).sort()).toEqual(['12', '3']);
  });

  it('are not replaced when held again (after a restart), keeping a decision', async () => {
    const dir = root();
    await writeHeldResult(dir, held(12), Buffer.from('json.{"first":1}'));
    await writeReviewDecision(dir, 12, { decision: 'refuse', note: 'no', by: 'ana', at: 'now' });
    await writeHeldResult(dir, held(12), Buffer.from('json.{"second":2}'));
    expect((await readHeldOutput(dir, 12)).toString()).toBe('json.{"first":1}');
    expect((await listHeldResults(dir))[0]?.decision).toMatchObject({ decision: 'refuse', by: 'ana' });
  });

  it('take the first decision only', async () => {
    const dir = root();
    await writeHeldResult(dir, held(12), Buffer.from('json.{}'));
    expect(await writeReviewDecision(dir, 12, { decision: 'release', note: '', by: 'ana', at: 'a' })).toBe(
      true,
    );
    expect(await writeReviewDecision(dir, 12, { decision: 'refuse', note: 'x', by: 'bo', at: 'b' })).toBe(
      false,
    );
    expect((await listHeldResults(dir))[0]?.decision).toMatchObject({ decision: 'release', by: 'ana' });
    await removeHeldResult(dir, 12);
    expect(await listHeldResults(dir)).toEqual([]);
  });

  it('cannot be decided when not held', async () => {
    const dir = root();
    await writeHeldResult(dir, held(1), Buffer.from('json.{}'));
    await expect(
      writeReviewDecision(dir, 2, { decision: 'release', note: '', by: 'a', at: 'a' }),
    ).rejects.toThrow(/ENOENT/);
  });
});
