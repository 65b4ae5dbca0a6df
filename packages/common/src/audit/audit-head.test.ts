import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchAuditHead } from './audit-head.js';
import { AuditLog } from './audit-log.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-audit-head-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(`${dir}.key`, { force: true });
});

describe('watchAuditHead', () => {
  it('logs the head periodically, only when entries were added since', async () => {
    const { log } = await AuditLog.open({ dir, chain: 'node', sync: false });
    const logged: Record<string, unknown>[] = [];
    const stop = watchAuditHead(log, { info: (fields) => void logged.push(fields) }, 20);
    const entry = await log.append('run.finished', { result_id: 1 });
    await new Promise((r) => setTimeout(r, 120));
    stop();
    await log.close();
    expect(logged).toEqual([
      { event: 'audit.head', chain: 'node', file: join(dir, 'node.jsonl'), seq: 1, hash: entry.hash },
    ]);
  });
});
