/** `vnode logs <run>` (docs/run-logs.md): the log of a run a node kept (`share_logs: false`), from its log folder. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptRunLogPath } from '@federa/common';
import { runCli, tempXdg, uniqueName, useXdg } from '@federa/testing';
import { EXIT_CODES } from '../exit-codes.js';
import { buildNodeProgram } from './program.js';

const dirs = tempXdg();
useXdg(dirs);
const name = uniqueName('keeper');
let logDir: string;

beforeAll(async () => {
  const made = await runCli(buildNodeProgram, ['new', '-n', name, '--api-key', 'key', '--yes']);
  expect(made.code).toBe(0);
  const files = await runCli(buildNodeProgram, ['files', '-n', name]);
  // `logs:` names the node's log folder through the file `logging.file` would write there.
  logDir = dirname(/also writes (\S+)\)/.exec(files.stdout)![1]!);
  const file = join(logDir, keptRunLogPath(name, 42));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, 'tick 1\ntick 2\n');
});
afterAll(() => dirs.cleanup());

describe('vnode logs', () => {
  it('prints the log of a run the node kept', async () => {
    const r = await runCli(buildNodeProgram, ['logs', '42', '-n', name]);
    expect(r).toMatchObject({ code: 0, stdout: 'tick 1\ntick 2\n', stderr: '' });
  });

  it('says so when the node kept no log of the run, and refuses what is not a result id', async () => {
    const missing = await runCli(buildNodeProgram, ['logs', '43', '-n', name]);
    expect(missing.code).toBe(EXIT_CODES.failure.code);
    expect(missing.stderr).toContain(`node ${name} keeps no log of run 43`);
    const bad = await runCli(buildNodeProgram, ['logs', '../42', '-n', name]);
    expect(bad.code).toBe(EXIT_CODES.usage.code);
    expect(bad.stderr).toContain("<run> must be a result id, not '../42'");
  });
});
