import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '@federa/common';
import { EXIT_CODES } from '../exit-codes.js';
import { runCli, tempXdg, uniqueName, useXdg } from '@federa/testing';
import { buildNodeProgram } from './program.js';

const dirs = tempXdg();
useXdg(dirs);
const name = uniqueName('audited');
const auditDir = join(dirs.env.XDG_DATA_HOME, 'federa', 'node', name, 'audit');
const file = join(auditDir, 'node.jsonl');
let lines: string[];

beforeAll(async () => {
  const made = await runCli(buildNodeProgram, ['new', '-n', name, '--api-key', 'key', '--yes']);
  expect(made.code).toBe(0);
  const { log } = await AuditLog.open({ dir: auditDir, chain: 'node' });
  await log.append('node.started', { node_id: 1 });
  for (const resultId of [11, 12]) {
    await log.append('run.started', { result_id: resultId, image_id: `sha256:${'a'.repeat(64)}` });
    await log.append('run.finished', { result_id: resultId, status: 'completed' });
  }
  await log.close();
  lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
});
afterAll(() => dirs.cleanup());

const tamper = (edit: (l: string[]) => string[]): void =>
  writeFileSync(file, `${edit([...lines]).join('\n')}\n`);

describe('vnode audit verify', () => {
  it("finds the node's audit log in its data folder and says it is intact", async () => {
    const r = await runCli(buildNodeProgram, ['audit', 'verify', '-n', name]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(
      /^OK: chain 'node': 5 entries intact \(entries 1-5, 1 file, key [0-9a-f]{16}\); last hash [0-9a-f]{64}\n$/,
    );
  });

  it('finds an edited, a removed and a reordered entry, with the exit code of the table', async () => {
    tamper((l) => {
      l[4] = (l[4] ?? '').replace('"completed"', '"failed"');
      return l;
    });
    const edited = await runCli(buildNodeProgram, ['audit', 'verify', '-n', name]);
    expect(edited.code).toBe(EXIT_CODES.tampered.code);
    expect(edited.stderr).toContain(`error: FAILED: chain 'node': edited at ${file} line 5`);
    expect(edited.stderr).toContain('entry 5 was changed after it was written');
    expect(edited.stderr).toContain('4 entries before it are intact (up to entry 4)');

    tamper((l) => l.filter((_, i) => i !== 2));
    const removed = await runCli(buildNodeProgram, ['audit', 'verify', '--file', auditDir]);
    expect(removed.code).toBe(EXIT_CODES.tampered.code);
    expect(removed.stderr).toContain(`missing at ${file} line 3`);

    tamper((l) => [l[0], l[1], l[3], l[2], l[4]].map(String));
    const reordered = await runCli(buildNodeProgram, ['audit', 'verify', '-n', name]);
    expect(reordered.code).toBe(EXIT_CODES.tampered.code);
    expect(reordered.stderr).toContain(`out-of-order at ${file} line 3`);
    expect(reordered.stderr).toContain('entry 4 comes before entry 3 (line 4)');
  });

  it('says in plain words what is wrong with a path that holds no audit log (exit 11)', async () => {
    const missing = join(auditDir, 'gone');
    const r = await runCli(buildNodeProgram, ['audit', 'verify', '--file', missing]);
    expect(r).toMatchObject({
      code: EXIT_CODES.input.code,
      stdout: '',
      stderr: `error: there is no audit log at ${missing}: no such file or folder\n`,
    });
    const notLog = join(dirs.root, 'notes.txt');
    writeFileSync(notLog, 'not json\n');
    const r2 = await runCli(buildNodeProgram, ['audit', 'verify', '--file', notLog]);
    expect(r2.code).toBe(EXIT_CODES.input.code);
    expect(r2.stderr).toBe(
      `error: ${notLog} is not an audit log: none of its lines is an audit entry (docs/audit.md, "The format")\n`,
    );
  });

  it('finds entries cut off the end with --head', async () => {
    const head = (JSON.parse(lines[4] ?? '') as { hash: string }).hash;
    tamper((l) => l.slice(0, 3));
    const cut = await runCli(buildNodeProgram, ['audit', 'verify', '-n', name, '--head', head]);
    expect(cut.code).toBe(EXIT_CODES.tampered.code);
    expect(cut.stderr).toContain(`error: FAILED: chain 'node': cut-off at ${file}\n`);
    expect(cut.stderr).toContain(`the log ends at entry 3 and holds no entry with hash ${head}`);
    tamper((l) => l);
    const ok = await runCli(buildNodeProgram, ['audit', 'verify', '-n', name, '--head', head]);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout).toMatch(/; the head given is entry 5\n$/);
  });
});
