import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditLog, writeHeldResult, type HeldResult } from '@federa/common';

import { reviewDecide, reviewList, reviewLog, reviewShow } from './review-commands.js';

const base = mkdtempSync(join(tmpdir(), 'federa-review-'));
const dir = join(base, 'review');
afterAll(() => rmSync(base, { recursive: true, force: true }));

const held: HeldResult = {
  version: 1,
  result_id: 42,
  task_id: 7,
  run_id: 9,
  image: 'reg/count:1',
  function: 'partial',
  initiating_organization_id: 2,
  initiating_user_id: 5,
  collaboration_id: 1,
  held_at: new Date(Date.now() - 5 * 60_000).toISOString(),
  expires_at: '2099-01-01T00:00:00.000Z',
  held_because: ['users: 5'],
  checks: ['min_cell_count', 'max_levels'],
  suppressed: false,
  log: 'counted 3 groups\n',
  output_bytes: 22,
};

describe('vnode review', () => {
  it('lists, shows in plain, and takes one decision per held result', async () => {
    expect(await reviewList(dir)).toBe(`no result is held (${dir})\n`);
    await writeHeldResult(dir, held, Buffer.from('json.{"table": [5, 9]}'));
    const list = await reviewList(dir);
    expect(list.split('\n')[0]).toMatch(/^RUN\s+TASK\s+IMAGE\s+FUNCTION\s+USER\s+HELD\s+EXPIRES\s+STATE$/);
    expect(list.split('\n')[1]).toMatch(
      /^42\s+7\s+reg\/count:1\s+partial\s+5\s+5 min\s+2099-01-01T00:00:00.000Z\s+waiting$/,
    );
    const shown = await reviewShow(dir, 42);
    expect(shown).toMatch(/^held because +users: 5$/m);
    expect(shown).toContain('"table": [\n    5,\n    9\n  ]');
    expect(shown).toContain('--- log ---\ncounted 3 groups\n');

    await expect(reviewDecide(dir, 42, 'refuse', ' ')).rejects.toThrow('a refusal needs --note');
    await expect(reviewDecide(dir, 43, 'release', '')).rejects.toThrow('run 43 is not held by this node');
    expect(await reviewDecide(dir, 42, 'release', 'aggregate only', 'ana')).toMatch(/^run 42 released/);
    await expect(reviewDecide(dir, 42, 'refuse', 'too late', 'bo')).rejects.toThrow(
      /run 42 was decided already \(release by ana at /,
    );
    expect(await reviewList(dir)).toMatch(/released, being reported/);
  });

  it("prints the output policy's audit entries, of one run or all", async () => {
    const auditDir = join(base, 'audit');
    const { log } = await AuditLog.open({ dir: auditDir, chain: 'node' });
    await log.append('run.started', { result_id: 42 });
    await log.append('output.refused', { result_id: 42, rule: 'min_cell_count', threshold: 3 });
    await log.append('output.checked', { result_id: 43, checks: [] });
    await log.close();
    const all = await reviewLog(auditDir);
    expect(all.split('\n').filter(Boolean)).toHaveLength(2);
    const one = await reviewLog(auditDir, 42);
    expect(one).toMatch(
      /^2 {2}\S+ {2}output\.refused {2}\{"result_id":42,"rule":"min_cell_count","threshold":3\}\n$/,
    );
  });
});
