/**
 * The point-to-point link between a run's network namespace and the VPN client: a VXLAN device on each side,
 * carried over the private network. Docker drops packets on an internal network whose addresses are not of
 * that network, so VPN traffic travels inside it (docs/vpn.md, "On the node").
 */
import type { ContainerRuntime } from '../runtime/index.js';
import { execOrThrow, interfaceWith } from './container-net.js';

export interface Link {
  readonly index: number;
  readonly vni: number;
  /** The device on the client's side (`fv<index>`); the run's side is always `fvpn`. */
  readonly device: string;
  /** Address of the run's side, and of the client's side (a /30 of 169.254.0.0/16). */
  readonly runAddress: string;
  readonly clientAddress: string;
  /** The helper's (the run's namespace's) address on the private network. */
  readonly helperPrivate: string;
}

/** The VPN client's end of every link: its container, its address and interface on the private network. */
export interface ClientEnd {
  readonly container: string;
  readonly gateway: string;
  readonly privateIf: string;
  readonly vpnSubnet: string;
}

const MAX_LINKS = 16_000;

/** Link numbers in use; each number gives a VXLAN id, a device name and a /30. */
export class LinkPool {
  readonly #used = new Set<number>();

  allocate(helperPrivate: string): Link {
    let index = 1;
    while (this.#used.has(index)) index++;
    if (index > MAX_LINKS) throw new Error('too many runs with VPN links at once');
    this.#used.add(index);
    const base = 169 * 2 ** 24 + 254 * 2 ** 16 + index * 4;
    const dotted = (n: number) => [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
    return {
      index,
      vni: 4096 + index,
      device: `fv${index}`,
      runAddress: dotted(base + 1),
      clientAddress: dotted(base + 2),
      helperPrivate,
    };
  }

  release(link: Link): void {
    this.#used.delete(link.index);
  }
}

const vxlan = (link: Link, device: string, local: string, remote: string, dev: string): string[] => [
  ...['ip', 'link', 'add', device, 'type', 'vxlan', 'id', String(link.vni)],
  ...['local', local, 'remote', remote, 'dstport', '4789', 'dev', dev],
];

/** Both ends of a run's link, and the route of the VPN subnet through it in the run's namespace. */
export async function connectLink(
  runtime: ContainerRuntime,
  client: ClientEnd,
  helper: string,
  link: Link,
): Promise<void> {
  const run = (container: string, cmd: readonly string[]) => execOrThrow(runtime, container, cmd);
  const helperIf = await interfaceWith(runtime, helper, link.helperPrivate);
  await runtime.exec(helper, ['ip', 'link', 'del', 'fvpn']).catch(() => undefined);
  await run(helper, vxlan(link, 'fvpn', link.helperPrivate, client.gateway, helperIf));
  await run(helper, ['ip', 'addr', 'add', `${link.runAddress}/30`, 'dev', 'fvpn']);
  await run(helper, ['ip', 'link', 'set', 'fvpn', 'up']);
  await run(helper, ['ip', 'route', 'replace', client.vpnSubnet, 'via', link.clientAddress]);
  await runtime.exec(client.container, ['ip', 'link', 'del', link.device]).catch(() => undefined);
  await run(client.container, vxlan(link, link.device, client.gateway, link.helperPrivate, client.privateIf));
  await run(client.container, ['ip', 'addr', 'add', `${link.clientAddress}/30`, 'dev', link.device]);
  await run(client.container, ['ip', 'link', 'set', link.device, 'up']);
}

/** Removes the client's side of a link (the run's side goes with its namespace). Never throws. */
export async function dropLink(
  runtime: ContainerRuntime,
  clientContainer: string,
  link: Link,
): Promise<void> {
  await runtime.exec(clientContainer, ['ip', 'link', 'del', link.device]).catch(() => undefined);
}
