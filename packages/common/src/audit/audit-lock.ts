/**
 * One writer per chain: `<chain>.lock` holds the writer's process id and host. A lock whose process is gone (same
 * host) is taken over; any other lock means another process writes that chain.
 */
import { hostname } from 'node:os';
import { readFile, rm, writeFile } from 'node:fs/promises';

export class AuditLockedError extends Error {
  constructor(
    readonly file: string,
    readonly holder: string,
  ) {
    super(`the audit log is being written by another process (${holder}; lock file ${file})`);
    this.name = 'AuditLockedError';
  }
}

/** Locks held by this process (a second writer in the same process is refused too). */
const held = new Set<string>();

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export async function acquireLock(file: string): Promise<void> {
  const me = JSON.stringify({ pid: process.pid, host: hostname() });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, me, { flag: 'wx', mode: 0o600 });
      held.add(file);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder: { pid?: unknown; host?: unknown } = {};
    try {
      holder = JSON.parse(await readFile(file, 'utf8')) as typeof holder;
    } catch {
      holder = {};
    }
    const pid = typeof holder.pid === 'number' ? holder.pid : undefined;
    const sameHost = holder.host === hostname();
    const stale = pid === undefined || (sameHost && (pid === process.pid ? !held.has(file) : !alive(pid)));
    if (!stale) throw new AuditLockedError(file, `process ${pid} on ${String(holder.host)}`);
    await rm(file, { force: true });
  }
  throw new AuditLockedError(file, 'a process that took the lock at the same moment');
}

export async function releaseLock(file: string): Promise<void> {
  if (!held.delete(file)) return;
  await rm(file, { force: true });
}
