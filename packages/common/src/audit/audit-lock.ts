/**
 * One writer per chain: `<chain>.lock` names the writer: its process id, host, the boot it runs in and its start
 * time. A lock whose process is gone is taken over; so is one whose process id now belongs to another process (the
 * id was reused after a kill -9, or the machine rebooted since): a process id alone cannot tell. Any other lock
 * means another process writes that chain.
 */
import { hostname } from 'node:os';
import { readFileSync } from 'node:fs';
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

/** This boot of the machine (Linux); undefined where the kernel does not say. */
export function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * When process `pid` started, in clock ticks since boot (field 22 of `/proc/<pid>/stat`, Linux): two processes that
 * share an id in one boot never share it. Undefined when the process is gone or the kernel does not say.
 */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = fields[19];
    return start !== undefined && /^\d+$/.test(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

interface Holder {
  pid?: unknown;
  host?: unknown;
  boot?: unknown;
  started?: unknown;
}

/** True when the holder named in a lock file on this host no longer runs. */
function gone(holder: Holder, pid: number): boolean {
  if (!alive(pid)) return true;
  const boot = bootId();
  if (typeof holder.boot === 'string' && boot !== undefined && holder.boot !== boot) return true;
  if (typeof holder.started === 'string') {
    const started = processStart(pid);
    if (started !== undefined && started !== holder.started) return true;
  }
  return false;
}

export async function acquireLock(file: string): Promise<void> {
  const boot = bootId();
  const started = processStart(process.pid);
  const me = JSON.stringify({
    pid: process.pid,
    host: hostname(),
    ...(boot !== undefined ? { boot } : {}),
    ...(started !== undefined ? { started } : {}),
  });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, me, { flag: 'wx', mode: 0o600 });
      held.add(file);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder: Holder = {};
    try {
      holder = JSON.parse(await readFile(file, 'utf8')) as Holder;
    } catch {
      holder = {};
    }
    const pid = typeof holder.pid === 'number' ? holder.pid : undefined;
    const sameHost = holder.host === hostname();
    const stale =
      pid === undefined || (sameHost && (pid === process.pid ? !held.has(file) : gone(holder, pid)));
    if (!stale) throw new AuditLockedError(file, `process ${pid} on ${String(holder.host)}`);
    await rm(file, { force: true });
  }
  throw new AuditLockedError(file, 'a process that took the lock at the same moment');
}

export async function releaseLock(file: string): Promise<void> {
  if (!held.delete(file)) return;
  await rm(file, { force: true });
}
