import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../server.js';
import { EXIT_CODES } from '../bin/exit-codes.js';

const BIN = fileURLToPath(new URL('../../dist/bin/vserver-local.js', import.meta.url));
let dir: string;
let config: string;
let lines: string[];

/** Runs the built `vserver-local` and returns its exit code and output. */
async function vserverLocal(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      env: { ...process.env, HOME: dir },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const auditFile = (): string => join(dir, 'data', 'audit', 'server.jsonl');
const tamper = (edit: (l: string[]) => string[]): Promise<void> =>
  writeFile(auditFile(), `${edit([...lines]).join('\n')}\n`);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-audit-cli-'));
  config = join(dir, 'server.yaml');
  await writeFile(
    config,
    [
      'environments:',
      '  prod:',
      '    uri: sqlite:///federa.sqlite',
      '    jwt_secret_key: a-secret-that-is-long-enough',
      '    bcrypt_rounds: 4',
      '    logging: { level: error }',
      '    directories: { data: data, log: log }',
      "    root_user: { email: root@example.org, password: 'Root-Password-1!' }",
      '',
    ].join('\n'),
  );
  const server = await startServer({ configFile: config, ip: '127.0.0.1', port: 0, env: { HOME: dir } });
  for (const password of ['wrong-password-1', 'Root-Password-1!'])
    await fetch(`${server.apiUrl}/token/user`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'root', password }),
    });
  await server.close();
  lines = (await readFile(auditFile(), 'utf8')).split('\n').filter(Boolean);
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('vserver-local audit verify', () => {
  it('says the log is intact', async () => {
    // server.started, a failed login, a login, server.stopped
    expect(lines.map((l) => (JSON.parse(l) as { event: string }).event)).toEqual([
      'server.started',
      'user.login_failed',
      'user.login',
      'server.stopped',
    ]);
    const r = await vserverLocal('audit', 'verify', '-c', config);
    expect(r).toMatchObject({ code: EXIT_CODES.ok });
    expect(r.stdout).toMatch(
      /^OK: chain 'server': 4 entries intact \(entries 1-4, 1 file, key [0-9a-f]{16}\); last hash [0-9a-f]{64}\n$/,
    );
  });

  it('finds an edited entry', async () => {
    await tamper((l) => {
      l[1] = (l[1] ?? '').replace('"status":401', '"status":200');
      return l;
    });
    const r = await vserverLocal('audit', 'verify', '--file', auditFile());
    expect(r.code).toBe(EXIT_CODES.tampered);
    expect(r.stderr).toContain(`FAILED: chain 'server': edited at ${auditFile()} line 2`);
    expect(r.stderr).toContain('entry 2 was changed after it was written');
  });

  it('finds a removed entry', async () => {
    await tamper((l) => l.filter((_, i) => i !== 1));
    const r = await vserverLocal('audit', 'verify', '-c', config);
    expect(r.code).toBe(EXIT_CODES.tampered);
    expect(r.stderr).toContain('missing at');
    expect(r.stderr).toContain('entry 2 is missing (entry 3 follows entry 1)');
  });

  it('finds reordered entries', async () => {
    await tamper((l) => [l[0] ?? '', l[2] ?? '', l[1] ?? '', l[3] ?? '']);
    const r = await vserverLocal('audit', 'verify', '-c', config);
    expect(r.code).toBe(EXIT_CODES.tampered);
    expect(r.stderr).toContain(`out-of-order at ${auditFile()} line 2`);
    expect(r.stderr).toContain('entry 3 comes before entry 2 (line 3)');
  });

  it('says in plain words that there is no such file, or that it is not an audit log (exit 11, no stack trace)', async () => {
    const missing = join(dir, 'missing.jsonl');
    const r = await vserverLocal('audit', 'verify', '--file', missing);
    expect(r).toEqual({
      code: EXIT_CODES.input,
      stdout: '',
      stderr: `error: there is no audit log at ${missing}: no such file or folder\n`,
    });
    const r2 = await vserverLocal('audit', 'verify', '--file', config);
    expect(r2).toEqual({
      code: EXIT_CODES.input,
      stdout: '',
      stderr: `error: ${config} is not an audit log: none of its lines is an audit entry (docs/audit.md, "The format")\n`,
    });
  });

  it('finds entries cut off the end with --head, which the chain alone cannot tell', async () => {
    const head = (JSON.parse(lines[3] ?? '') as { hash: string }).hash;
    await tamper((l) => l.slice(0, 2));
    expect(await vserverLocal('audit', 'verify', '-c', config)).toMatchObject({ code: EXIT_CODES.ok });
    const r = await vserverLocal('audit', 'verify', '-c', config, '--head', head);
    expect(r.code).toBe(EXIT_CODES.tampered);
    expect(r.stderr).toContain(`FAILED: chain 'server': cut-off at ${auditFile()}\n`);
    expect(r.stderr).toContain(`the log ends at entry 2 and holds no entry with hash ${head}`);
    await tamper((l) => l);
    const ok = await vserverLocal('audit', 'verify', '-c', config, '--head', head);
    expect(ok).toMatchObject({ code: EXIT_CODES.ok });
    expect(ok.stdout).toMatch(/; the head given is entry 4\n$/);
    expect(await vserverLocal('audit', 'verify', '-c', config, '--head', 'xyz')).toMatchObject({
      code: EXIT_CODES.usage,
      stderr: "error: --head must be an entry hash (64 hex digits), not 'xyz'\n",
    });
  });
});
