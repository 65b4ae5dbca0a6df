import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { copyFileDatabases, readRunOutput, removeRunFiles, writeRunFiles } from './run-files.js';
import { RunStore } from './run-store.js';

describe('run files on the host', () => {
  it('writes input, an empty output and the token without newline under task-<9 digits>', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'federa-files-'));
    const p = await writeRunFiles(dir, 42, Buffer.from([0, 1, 2, 255]), 'abc.def.ghi\n');
    expect(p.dir).toBe(join(dir, 'task-000000042'));
    expect([...readFileSync(p.input)]).toEqual([0, 1, 2, 255]);
    expect(statSync(p.output).size).toBe(0);
    expect(readFileSync(p.token, 'ascii')).toBe('abc.def.ghi');
    writeFileSync(p.output, 'json.1');
    expect((await readRunOutput(dir, 42))?.toString()).toBe('json.1');
    await removeRunFiles(dir, 42);
    expect(await readRunOutput(dir, 42)).toBeUndefined();
  });

  it('copies file databases by base name', async () => {
    const src = mkdtempSync(join(tmpdir(), 'federa-src-'));
    const vol = mkdtempSync(join(tmpdir(), 'federa-vol-'));
    writeFileSync(join(src, 'a.csv'), 'x\n1\n');
    const copied = await copyFileDatabases(vol, [
      { label: 'default', uri: join(src, 'a.csv'), type: 'csv', isFile: true },
      { label: 'pg', uri: 'postgresql://x/y', type: 'sql', isFile: false },
    ]);
    expect(copied).toEqual([join(vol, 'a.csv')]);
    expect(readFileSync(join(vol, 'a.csv'), 'utf8')).toBe('x\n1\n');
  });

  it('keeps the run record across reopening', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'federa-store-')), 'runs.json');
    const a = await RunStore.open(file);
    await a.put({
      resultId: 5,
      taskId: 2,
      runId: 2,
      image: 'i',
      containerName: 'c',
      phase: 'starting',
      since: new Date().toISOString(),
    });
    await a.update(5, { phase: 'running' });
    await a.put({
      resultId: 6,
      taskId: 2,
      runId: 2,
      image: 'i',
      containerName: 'd',
      phase: 'starting',
      since: new Date().toISOString(),
    });
    await a.remove(6);
    const b = await RunStore.open(file);
    expect(b.all().map((r) => [r.resultId, r.phase])).toEqual([[5, 'running']]);
  });
});
