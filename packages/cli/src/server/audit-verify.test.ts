import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditLog } from '@federa/common';
import { runCli, tempXdg, useXdg } from '@federa/testing';
import { EXIT_CODES } from '../exit-codes.js';
import { buildServerProgram } from './program.js';

const dirs = tempXdg();
useXdg(dirs);
afterAll(() => dirs.cleanup());

describe('vserver audit verify', () => {
  it("checks the audit folder of the server's data folder and finds an edited entry", async () => {
    const data = join(dirs.root, 'server-data');
    mkdirSync(data, { recursive: true });
    const config = join(dirs.root, 'main.yaml');
    writeFileSync(
      config,
      `environments:\n  prod:\n    uri: sqlite:///main.sqlite\n    jwt_secret_key: a-secret-that-is-long-enough\n    root_user: {email: root@example.org}\n    directories: {data: ${data}}\n`,
    );
    const { log } = await AuditLog.open({ dir: join(data, 'audit'), chain: 'server' });
    await log.append('server.started', {});
    await log.append('user.login_failed', { username: 'mallory', status: 401 });
    await log.close();

    const ok = await runCli(buildServerProgram, ['audit', 'verify', '-c', config]);
    expect(ok.stderr).toBe('');
    expect(ok).toMatchObject({ code: 0 });
    expect(ok.stdout).toMatch(/^OK: chain 'server': 2 entries intact/);

    const file = join(data, 'audit', 'server.jsonl');
    writeFileSync(file, readFileSync(file, 'utf8').replace('mallory', 'alice'));
    const bad = await runCli(buildServerProgram, ['audit', 'verify', '-c', config]);
    expect(bad.code).toBe(EXIT_CODES.tampered.code);
    expect(bad.stderr).toContain(`edited at ${file} line 2`);
  });

  it('says in plain words that there is no audit log at the path (exit 11)', async () => {
    const missing = join(dirs.root, 'no-audit-here');
    const r = await runCli(buildServerProgram, ['audit', 'verify', '--file', missing]);
    expect(r).toMatchObject({
      code: EXIT_CODES.input.code,
      stdout: '',
      stderr: `error: there is no audit log at ${missing}: no such file or folder\n`,
    });
  });
});
