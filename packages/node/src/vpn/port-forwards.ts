/**
 * A run's algorithm ports on the VPN: each forwarded from a port of the node's VPN address (picked at random in the
 * range nodes allocate from) to the run's end of its link, by DNAT in the VPN client (docs/vpn.md, "On the node").
 */
import { randomInt } from 'node:crypto';

import type { ContainerRuntime } from '../runtime/index.js';
import type { AlgorithmPort } from './algorithm-ports.js';
import { execOrThrow } from './container-net.js';
import { FIRST_VPN_PORT, LAST_VPN_PORT } from './vpn-client.js';

export interface Forward extends AlgorithmPort {
  readonly vpnPort: number;
  /** The run's address on its link. */
  readonly target: string;
}

/** VPN ports in use on this node. */
export class VpnPortPool {
  readonly #used = new Set<number>();

  allocate(): number {
    for (let i = 0; i < 1000; i++) {
      const p = randomInt(FIRST_VPN_PORT, LAST_VPN_PORT + 1);
      if (!this.#used.has(p)) {
        this.#used.add(p);
        return p;
      }
    }
    throw new Error('no free VPN port left');
  }

  release(port: number): void {
    this.#used.delete(port);
  }
}

/** Adds (`-A`) or deletes (`-D`) the DNAT rule of a forward in the client container. */
export async function setForward(
  runtime: ContainerRuntime,
  clientContainer: string,
  action: '-A' | '-D',
  f: Forward,
): Promise<void> {
  await execOrThrow(runtime, clientContainer, [
    ...['iptables', '-t', 'nat', action, 'PREROUTING', '-i', 'tun0', '-p', 'tcp'],
    ...['--dport', String(f.vpnPort), '-j', 'DNAT', '--to-destination', `${f.target}:${f.port}`],
  ]);
}
