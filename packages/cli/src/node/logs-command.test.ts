/** `vnode logs <run>` (docs/run-logs.md): the log of a run a node kept (`share_logs: false`), from its log folder. */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptRunLogPath } from '@federa/common';
import { runCli, tempXdg, uniqueName, useXdg } from '@federa/testing';
import { EXIT_CODES } from '../exit-codes.js';
import { buildNodeProgram } from './program.js';
import { keptLogReadError } from './record-commands.js';

const dirs = tempXdg();
useXdg(dirs);
const name = uniqueName('keeper');
const cwdBefore = readdirSync(process.cwd()).sort();
let logDir: string;
let files: Awaited<ReturnType<typeof runCli>>;

beforeAll(async () => {
  const made = await runCli(buildNodeProgram, ['new', '-n', name, '--api-key', 'key', '--yes']);
  expect(made.code).toBe(0);
  files = await runCli(buildNodeProgram, ['files', '-n', name]);
  // A node in Docker mode (no logging.file): its `logs:` row is a sentence, its `log folder:` row the folder.
  logDir = /^log folder:\s+(.+)$/m.exec(files.stdout)?.[1]?.trim() ?? '';
  // Written only inside the temp folders: a relative folder would put it in the working folder (the repository).
  if (!logDir.startsWith(dirs.root + sep)) return;
  const file = join(logDir, keptRunLogPath(name, 42));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, 'tick 1\ntick 2\n');
});
afterAll(() => dirs.cleanup());

describe('vnode logs', () => {
  it('vnode files names the log folder of a node that logs to its container output, as a path', () => {
    expect(files.stdout).toMatch(/^logs:\s+the container's output: vnode attach -n /m);
    expect(isAbsolute(logDir)).toBe(true);
    expect(logDir.startsWith(dirs.root + sep)).toBe(true);
  });

  it('prints the log of a run the node kept, and writes nothing in the working folder', async () => {
    const r = await runCli(buildNodeProgram, ['logs', '42', '-n', name]);
    expect(r).toMatchObject({ code: 0, stdout: 'tick 1\ntick 2\n', stderr: '' });
    expect(readdirSync(process.cwd()).sort()).toEqual(cwdBefore);
  });

  it('says so when the node kept no log of the run, and refuses what is not a result id', async () => {
    const missing = await runCli(buildNodeProgram, ['logs', '43', '-n', name]);
    expect(missing.code).toBe(EXIT_CODES.failure.code);
    expect(missing.stderr).toContain(
      `node ${name} keeps no log of run 43 (looked in ${join(logDir, keptRunLogPath(name, 43))})`,
    );
    const bad = await runCli(buildNodeProgram, ['logs', '../42', '-n', name]);
    expect(bad.code).toBe(EXIT_CODES.usage.code);
    expect(bad.stderr).toContain("<run> must be a result id, not '../42'");
  });

  // The node container writes kept logs as root, mode 0600. These tests run as root, where no file is unreadable,
  // so the errors a non-root admin meets are passed in as Node.js gives them.
  it('tells a user who may not read the kept log where it is and which command reads it', () => {
    const file = join(logDir, keptRunLogPath(name, 42));
    const denied = Object.assign(new Error(`EACCES: permission denied, open '${file}'`), { code: 'EACCES' });
    const e = keptLogReadError(denied, file, name, '42');
    expect(e.exitCode).toBe(EXIT_CODES.failure.code);
    expect(e.message).toBe(
      `this user may not read the log of run 42 (${file}, permission denied): node ${name} in Docker writes its runs' logs as root, readable by root only; read it with: sudo cat '${file}'`,
    );
    expect(e.message).not.toContain('keeps no log');
  });
});
