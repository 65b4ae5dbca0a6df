/**
 * Waiting for a container's exit through Podman's own API. Podman 4's Docker-compatible wait polls the container's
 * state in a loop without pause (measured: 3.5 s of the API service's CPU during a 5 s run, on a machine whose cores
 * the algorithms need) and answers only once the container's clean-up, another Podman process, has run. Podman's
 * own wait polls at an interval the caller gives and can answer at `stopped`, as soon as the process has exited.
 * The first seconds are polled finely (a short run is what a round trip waits for), then coarsely. Where the node
 * can read conmon's exit files (the node runs as the engine's user, on its host), the file tells the exit first.
 */
import { constants, watch, type FSWatcher } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type Docker from 'dockerode';

import { dial } from './libpod-info.js';

/** Poll intervals: fine for the first `forMs`, then coarse until the container stops. */
export const WAIT_PHASES = [
  { interval: '10ms', forMs: 2_000 },
  { interval: '100ms', forMs: undefined },
] as const;

/** The container's exit code once it has stopped (Podman's wait for `stopped` or `exited`). */
export async function waitStopped(docker: Docker, id: string, signal?: AbortSignal): Promise<number> {
  for (const phase of WAIT_PHASES) {
    const phaseEnd = phase.forMs === undefined ? undefined : AbortSignal.timeout(phase.forMs);
    const signals = [signal, phaseEnd].filter((s): s is AbortSignal => s !== undefined);
    try {
      const answer = await dial(
        docker,
        'POST',
        `/v4.0.0/libpod/containers/${encodeURIComponent(id)}/wait`,
        { 200: true, 404: 'no such container', 500: 'server error' },
        { condition: ['stopped', 'exited'], interval: phase.interval },
        signals.length > 0 ? AbortSignal.any(signals) : undefined,
      );
      const code = typeof answer === 'number' ? answer : Number.parseInt(String(answer), 10);
      if (!Number.isInteger(code)) throw new Error(`Podman's wait gave no exit code (${String(answer)})`);
      return code;
    } catch (err) {
      // The fine phase is over: the same wait continues at the coarse interval.
      if (phaseEnd?.aborted && !signal?.aborted) continue;
      throw err;
    }
  }
  throw new Error('unreachable: the last wait phase has no end');
}

/**
 * Where Podman's conmon writes a container's exit code the moment its process ends (`<tmp dir>/exits/<id>`): for a
 * user's service, `$XDG_RUNTIME_DIR/libpod/tmp/exits`, beside the socket's `$XDG_RUNTIME_DIR/podman/`. Podman's own
 * wait learns of the exit later, once its clean-up process has let go of the container (measured: about 150 ms on a
 * loaded machine, against a few ms for the file). Undefined when this process cannot read that folder.
 */
export async function exitDirectory(socketPath: string): Promise<string | undefined> {
  const dir = join(dirname(dirname(socketPath)), 'libpod', 'tmp', 'exits');
  try {
    await access(dir, constants.R_OK | constants.X_OK);
    return dir;
  } catch {
    return undefined;
  }
}

/** An exit file's text is the exit code alone; anything else is not taken (the API's wait still answers). */
const exitCodeIn = (text: string): number | undefined =>
  /^\d{1,3}\s*$/.test(text) ? Number.parseInt(text, 10) : undefined;

/** Resolves with the exit code once conmon has written the container's exit file; never rejects. */
export function watchExitFile(dir: string, id: string, signal: AbortSignal): Promise<number> {
  return new Promise<number>((resolve) => {
    const file = join(dir, id);
    let done = false;
    const look = (): void => {
      if (done) return;
      readFile(file, 'utf8').then(
        (text) => {
          const code = exitCodeIn(text);
          if (code === undefined || done) return;
          done = true;
          stop();
          resolve(code);
        },
        () => undefined,
      );
    };
    let watcher: FSWatcher | undefined;
    const stop = (): void => {
      watcher?.close();
      signal.removeEventListener('abort', stop);
    };
    try {
      watcher = watch(dir, (_event, name) => {
        if (name === id) look();
      });
      watcher.on('error', stop);
    } catch {
      return;
    }
    signal.addEventListener('abort', stop, { once: true });
    // Written before the watch began (a run that ended at once).
    look();
  });
}
