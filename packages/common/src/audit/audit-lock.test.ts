import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, AuditLockedError, bootId, processStart, releaseLock } from './audit-lock.js';

// A lock file left by a writer that is gone, whose process id now names a live, unrelated process: the id was
// reused (after a kill -9, or after a reboot). The live process here is a `sleep` this test starts.

let dir: string;
let file: string;
let other: ChildProcess;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-audit-lock-'));
  file = join(dir, 'test.lock');
  other = spawn('sleep', ['60'], { stdio: 'ignore' });
  await new Promise((resolve) => other.once('spawn', resolve));
});

afterEach(async () => {
  other.kill('SIGKILL');
  await releaseLock(file);
  await rm(dir, { recursive: true, force: true });
});

const lockNaming = (holder: Record<string, unknown>): Promise<void> =>
  writeFile(file, JSON.stringify({ pid: other.pid, host: hostname(), ...holder }));

describe('the audit lock', () => {
  it('names this process, its boot and its start time', async () => {
    await acquireLock(file);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      pid: process.pid,
      host: hostname(),
      boot: bootId(),
      started: processStart(process.pid),
    });
    expect(bootId()).toMatch(/^[0-9a-f-]{36}$/);
    expect(processStart(process.pid)).toMatch(/^\d+$/);
  });

  it('is taken over when its process id now names another process (the id was reused)', async () => {
    await lockNaming({ boot: bootId(), started: String(Number(processStart(other.pid!)) - 1000) });
    await acquireLock(file);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ pid: process.pid });
  });

  it('is taken over when it was written before the machine rebooted', async () => {
    await lockNaming({ boot: '00000000-0000-4000-8000-000000000000', started: processStart(other.pid!) });
    await acquireLock(file);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ pid: process.pid });
  });

  it('is refused while the process it names runs, naming that process', async () => {
    await lockNaming({ boot: bootId(), started: processStart(other.pid!) });
    await expect(acquireLock(file)).rejects.toThrow(AuditLockedError);
    await expect(acquireLock(file)).rejects.toThrow(`process ${other.pid} on ${hostname()}`);
  });

  it('is taken over when the process it names has exited', async () => {
    await lockNaming({ boot: bootId(), started: processStart(other.pid!) });
    const exited = new Promise((resolve) => other.once('exit', resolve));
    other.kill('SIGKILL');
    await exited;
    await acquireLock(file);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ pid: process.pid });
  });
});
