/**
 * Waiting for a container's exit through Podman's own API. Podman 4's Docker-compatible wait polls the container's
 * state in a loop without pause (measured: 3.5 s of the API service's CPU during a 5 s run, on a machine whose cores
 * the algorithms need) and answers only once the container's clean-up, another Podman process, has run. Podman's
 * own wait polls at an interval the caller gives and can answer at `stopped`, as soon as the process has exited.
 * The first seconds are polled finely (a short run is what a round trip waits for), then coarsely.
 */
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
