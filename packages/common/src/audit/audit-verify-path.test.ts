import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from './audit-log.js';
import { auditVerifyOutcome, formatAuditVerdict } from './audit-verdict.js';
import { AuditPathError, verifyAuditPath } from './audit-verify-path.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-audit-path-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(`${dir}.key`, { force: true });
});

/** A closed chain `node` of `n` entries in `dir`; its current file's lines. */
async function chainOf(n: number): Promise<string[]> {
  const { log } = await AuditLog.open({ dir, chain: 'node' });
  for (let i = 1; i <= n; i++) await log.append('run.finished', { result_id: i, status: 'completed' });
  await log.close();
  return (await readFile(join(dir, 'node.jsonl'), 'utf8')).split('\n').filter(Boolean);
}
const hashOf = (line: string | undefined): string => (JSON.parse(line ?? '{}') as { hash: string }).hash;

describe('verifyAuditPath of a path that holds no audit log', () => {
  it('says there is no such file or folder', async () => {
    const missing = join(dir, 'nope', 'node.jsonl');
    await expect(verifyAuditPath(missing)).rejects.toThrow(
      new AuditPathError('not-found', `there is no audit log at ${missing}: no such file or folder`),
    );
    expect(await auditVerifyOutcome(missing)).toEqual({
      reason: 'input',
      text: `there is no audit log at ${missing}: no such file or folder\n`,
    });
  });

  it('says a file or a folder is not an audit log', async () => {
    const notes = join(dir, 'notes.txt');
    await writeFile(notes, 'hello\nworld\n');
    await expect(verifyAuditPath(notes)).rejects.toMatchObject({
      problem: 'not-audit-log',
      message: `${notes} is not an audit log: none of its lines is an audit entry (docs/audit.md, "The format")`,
    });
    const empty = join(dir, 'empty');
    await mkdir(empty);
    await expect(verifyAuditPath(empty)).rejects.toMatchObject({
      problem: 'not-audit-log',
      message: `${empty} is not an audit log folder: it holds no audit log files (<chain>.jsonl)`,
    });
  });

  it('still calls a log whose first line was mangled tampered, not "not an audit log"', async () => {
    const lines = await chainOf(3);
    lines[0] = 'garbage';
    await writeFile(join(dir, 'node.jsonl'), `${lines.join('\n')}\n`);
    const [report] = await verifyAuditPath(join(dir, 'node.jsonl'));
    expect(report?.problem).toMatchObject({ kind: 'malformed', line: 1 });
  });

  it('says a file it may not read cannot be read (permission denied)', async () => {
    await chainOf(1);
    await chmod(dir, 0o700);
    const file = join(dir, 'node.jsonl');
    await chmod(file, 0o600);
    // Root reads anything: the check runs as the unprivileged user `nobody` then (real permissions either way).
    const lib = fileURLToPath(new URL('../../dist/audit/audit-verify-path.js', import.meta.url));
    const script = `import(${JSON.stringify(lib)}).then(({ verifyAuditPath }) => verifyAuditPath(${JSON.stringify(file)})).then(() => console.log('read'), (e) => console.log(e.problem + ': ' + e.message))`;
    const node = [process.execPath, '--input-type=module', '-e', script];
    const argv =
      process.getuid?.() === 0
        ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', ...node]
        : node;
    const out = execFileSync(argv[0] ?? '', argv.slice(1), { encoding: 'utf8' });
    expect(out.trim()).toBe(`unreadable: the audit log at ${file} cannot be read: permission denied`);
  });
});

describe('verifyAuditPath with a head recorded earlier', () => {
  it('finds the head in an intact log, also when entries were added after it', async () => {
    const lines = await chainOf(4);
    const reports = await verifyAuditPath(dir, { head: hashOf(lines[2]) });
    expect(reports).toMatchObject([{ chain: 'node', entries: 4, headSeq: 3 }]);
    expect(reports[0]?.problem).toBeUndefined();
    expect(formatAuditVerdict(reports).text).toMatch(/; the head given is entry 3\n$/);
  });

  it('finds that the last entries were cut off the end, which the chain alone cannot tell', async () => {
    const lines = await chainOf(4);
    const head = hashOf(lines[3]);
    await writeFile(join(dir, 'node.jsonl'), `${lines.slice(0, 2).join('\n')}\n`);
    expect((await verifyAuditPath(dir))[0]?.problem).toBeUndefined();
    const reports = await verifyAuditPath(dir, { head });
    expect(reports[0]?.problem).toEqual({
      file: join(dir, 'node.jsonl'),
      line: 0,
      kind: 'cut-off',
      reason: `the log ends at entry 2 and holds no entry with hash ${head} (the head recorded earlier): entries at its end were removed, or the hash is of another log`,
    });
    const outcome = await auditVerifyOutcome(join(dir, 'node.jsonl'), head);
    expect(outcome.reason).toBe('tampered');
    expect(outcome.text).toContain(`FAILED: chain 'node': cut-off at ${join(dir, 'node.jsonl')}\n`);
  });

  it('refuses a head that is not a hash', async () => {
    await chainOf(1);
    expect(await auditVerifyOutcome(dir, 'abc')).toEqual({
      reason: 'usage',
      text: "--head must be an entry hash (64 hex digits), not 'abc'\n",
    });
  });
});
