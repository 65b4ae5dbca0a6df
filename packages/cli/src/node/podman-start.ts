/**
 * `vnode start` for a node on rootless Podman (docs/deploy-node.md#rootless-podman): the node runs on this host as
 * the user who starts it (`vnode-local start`, detached), never as root, and runs its algorithms on that user's
 * Podman. Its process id is kept in `<data dir>/vnode-local.pid` for `vnode stop`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { InstanceRef } from '../config/store.js';
import { checkNodeConfig } from '../config/validate.js';
import { CliError } from '../exit-codes.js';
import type { Env } from '../paths.js';
import { nodeLayout } from './start.js';

export type NodeRuntime = 'docker' | 'podman';

/** The runtime of a start: the command line's, else the configuration's `container_runtime`; a conflict is refused. */
export function chooseRuntime(flag: string | undefined, configured: unknown): NodeRuntime {
  if (flag !== undefined && flag !== 'docker' && flag !== 'podman')
    throw new CliError('usage', `--runtime must be docker or podman, not '${flag}'`);
  const fromConfig = configured === 'podman' ? 'podman' : configured === undefined ? undefined : 'docker';
  if (flag !== undefined && fromConfig !== undefined && flag !== fromConfig) {
    throw new CliError(
      'usage',
      `--runtime ${flag} contradicts the configuration's container_runtime: ${fromConfig}; change one of them ('vnode set container_runtime ${flag}')`,
    );
  }
  return (flag as NodeRuntime | undefined) ?? fromConfig ?? 'docker';
}

const pidFileOf = (dataDir: string): string => join(dataDir, 'vnode-local.pid');

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function runningPid(dataDir: string): number | undefined {
  const file = pidFileOf(dataDir);
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
}

/** Whether `vnode start` left a node process of this configuration running (its pid file names a live process). */
export function podmanNodeRunning(
  ref: InstanceRef,
  raw: Record<string, unknown>,
  env: Env = process.env,
): boolean {
  return runningPid(nodeLayout(ref, raw, env).dataDir) !== undefined;
}

/** The compiled `vnode-local` of the installed @federa/node. */
function vnodeLocalProgram(): string {
  const index = createRequire(import.meta.url).resolve('@federa/node');
  return join(dirname(index), 'bin', 'vnode-local.js');
}

export async function startNodeOnPodman(
  ref: InstanceRef,
  options: { environment: string; wait: number },
  env: Env = process.env,
  uid: number = process.getuid?.() ?? -1,
): Promise<{ pid: number; logFile: string }> {
  if (uid === 0) {
    throw new CliError(
      'usage',
      "a node on rootless Podman must not run as root: run 'vnode start' as the unprivileged user whose Podman runs the algorithms",
    );
  }
  const raw = checkNodeConfig(ref.file, options.environment, ref.name, {
    ...env,
    FEDERA_CONTAINER_RUNTIME: 'podman',
  });
  const layout = nodeLayout(ref, raw, env);
  const running = runningPid(layout.dataDir);
  if (running !== undefined) {
    throw new CliError(
      'state',
      `the node '${ref.name}' is running already (process ${running}); stop it with 'vnode stop -n ${ref.name}'`,
    );
  }
  mkdirSync(layout.dataDir, { recursive: true });
  mkdirSync(layout.logDir, { recursive: true });
  const logFile = join(layout.logDir, `${ref.name}.log`);
  const out = openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [vnodeLocalProgram(), 'start', '-c', ref.file, '-e', options.environment, '-n', ref.name],
    {
      detached: true,
      stdio: ['ignore', out, out],
      env: { ...env, FEDERA_CONTAINER_RUNTIME: 'podman' } as NodeJS.ProcessEnv,
    },
  );
  const pid = child.pid;
  if (pid === undefined) throw new CliError('failure', 'vnode-local could not be started');
  child.unref();
  writeFileSync(pidFileOf(layout.dataDir), `${pid}\n`);
  const offset = readFileSync(logFile).length;
  // Until the node says it is ready (or refuses to start, which the log then says why).
  for (let waited = 0; waited < options.wait * 1000; waited += 200) {
    const text = readFileSync(logFile).subarray(offset).toString('utf8');
    if (text.includes('"event":"node.ready"')) break;
    if (!alive(pid)) {
      rmSync(pidFileOf(layout.dataDir), { force: true });
      throw new CliError(
        'failure',
        `the node stopped right after its start; its log (${logFile}):\n${text.slice(-2000)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { pid, logFile };
}

/** Stops a node started by startNodeOnPodman (SIGTERM, or SIGKILL with `force`); false when none was running. */
export async function stopNodeOnPodman(
  ref: InstanceRef,
  options: { environment: string; force?: boolean },
  env: Env = process.env,
): Promise<boolean> {
  const raw = checkNodeConfig(ref.file, options.environment, ref.name, env);
  const { dataDir } = nodeLayout(ref, raw, env);
  const pid = runningPid(dataDir);
  if (pid === undefined) return false;
  process.kill(pid, options.force ? 'SIGKILL' : 'SIGTERM');
  for (let waited = 0; alive(pid) && waited < 30_000; waited += 100)
    await new Promise((r) => setTimeout(r, 100));
  rmSync(pidFileOf(dataDir), { force: true });
  return true;
}
