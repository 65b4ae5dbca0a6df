/**
 * The node's side of the VPN between algorithms (docs/vpn.md, "On the node").
 *
 * One VPN client container per node (`<prefix>-<node>-vpn-client`, image federa/vpn-client:local; vpn-client.ts)
 * sits on the node's private network and on the engine's default bridge (its way to the VPN server). Algorithm
 * containers get a route for the VPN subnet through it and nothing else (run-links.ts): no internet still. Each port
 * an algorithm image declares (algorithm-ports.ts) is forwarded from the node's VPN address to the algorithm (DNAT
 * in the client container; port-forwards.ts), registered with `POST /port`, and dropped when the run ends. The
 * node's VPN address goes to the server with `PATCH /node`. The certificate is renewed before a third of its
 * lifetime is left (vpn-config.ts); OpenVPN itself reconnects after a cut.
 */
import type { Logger } from 'pino';
import { parseIpv4Subnet } from '@federa/common';

import { ServerRequestError } from '../errors.js';
import type { NodeNames } from '../runs/naming.js';
import type { ContainerRuntime } from '../runtime/index.js';
import type { RestClient } from '../server-client/rest-client.js';
import type { AlgorithmPort } from './algorithm-ports.js';
import { addressIn, execOrThrow, interfaceWith, tunnelAddress } from './container-net.js';
import { setForward, VpnPortPool, type Forward } from './port-forwards.js';
import { connectLink, dropLink, LinkPool, type ClientEnd, type Link } from './run-links.js';
import {
  RESTART_OPENVPN,
  vpnClientFirewall,
  vpnClientName,
  vpnClientSpec,
  writeConfigCommand,
} from './vpn-client.js';
import { fetchVpnConfig, renewalDelayMs, renewVpnConfig } from './vpn-config.js';

export { DEFAULT_VPN_CLIENT_IMAGE } from './vpn-client.js';
export { DEFAULT_ALGORITHM_PORT, declaredPorts, type AlgorithmPort } from './algorithm-ports.js';

/** Network helpers of a VPN node need iproute2 (VXLAN links): the VPN image, whose default command sleeps. */
export const VPN_HELPER_IMAGE = 'federa/vpn:local';

interface RunVpnState {
  readonly helper: string;
  readonly link: Link;
  readonly forwards: readonly Forward[];
}

export interface NodeVpnOptions {
  readonly runtime: ContainerRuntime;
  readonly rest: RestClient;
  readonly names: NodeNames;
  readonly nodeId: number;
  /** The node's private (internal) network. */
  readonly network: string;
  /** Subnet of the private network: the client's address on it is the algorithms' gateway to the VPN. */
  readonly networkSubnet: string;
  /** `vpn_subnet` of the node configuration. */
  readonly vpnSubnet: string;
  readonly log: Logger;
  /**
   * Image of the VPN client container.
   * @default DEFAULT_VPN_CLIENT_IMAGE ('federa/vpn-client:local')
   */
  readonly image?: string;
  /**
   * Network with a way out, to reach the VPN server.
   * @default 'bridge' (the engine's default bridge)
   */
  readonly outsideNetwork?: string;
  /**
   * How often the client container and its address are checked, in milliseconds.
   * @default 10000
   */
  readonly watchIntervalMs?: number;
}

export class NodeVpn {
  readonly #o: NodeVpnOptions;
  readonly #container: string;
  readonly #runs = new Map<number, RunVpnState>();
  readonly #ports = new VpnPortPool();
  readonly #links = new LinkPool();
  #config = '';
  #address: string | undefined;
  #client: ClientEnd | undefined;
  #renewTimer: NodeJS.Timeout | undefined;
  #watchTimer: NodeJS.Timeout | undefined;
  #closed = false;

  private constructor(options: NodeVpnOptions) {
    this.#o = options;
    this.#container = vpnClientName(options.names);
  }

  /**
   * Connects the node to the VPN, or returns null (saying why, once) when the server offers none or it cannot be
   * set up: the node then runs without VPN.
   */
  static async start(options: NodeVpnOptions): Promise<NodeVpn | null> {
    const { log } = options;
    try {
      parseIpv4Subnet(options.vpnSubnet);
    } catch (error) {
      throw new Error(`vpn_subnet: ${(error as Error).message}`);
    }
    let config: string;
    try {
      config = await fetchVpnConfig(options.rest);
    } catch (error) {
      if (error instanceof ServerRequestError && error.status === 501) {
        log.info(
          { event: 'vpn.not_offered', vpn_subnet: options.vpnSubnet },
          'vpn_subnet is set, but the server has no VPN: algorithms run without algorithm-to-algorithm traffic',
        );
        return null;
      }
      throw error;
    }
    const vpn = new NodeVpn(options);
    vpn.#config = config;
    await vpn.#startClient();
    vpn.#scheduleRenewal();
    vpn.#watch();
    return vpn;
  }

  /** The node's address on the VPN. */
  get address(): string | undefined {
    return this.#address;
  }

  /** Names of the containers this node runs for the VPN (for `vnode files`/cleaning tools). */
  get containerName(): string {
    return this.#container;
  }

  /**
   * Before an algorithm starts in `helper`'s network namespace: route the VPN subnet through the client, forward
   * the image's ports from the node's VPN address, and register them for the result.
   */
  async prepareRun(resultId: number, helper: string, ports: readonly AlgorithmPort[]): Promise<void> {
    const { runtime, rest, network, networkSubnet } = this.#o;
    const helperPrivate = await addressIn(runtime, helper, networkSubnet);
    if (!helperPrivate) throw new Error(`the network helper ${helper} has no address on ${network}`);
    const link = this.#links.allocate(helperPrivate);
    await connectLink(runtime, this.#clientEnd(), helper, link);
    const forwards: Forward[] = ports.map((p) => ({
      ...p,
      vpnPort: this.#ports.allocate(),
      target: link.runAddress,
    }));
    this.#runs.set(resultId, { helper, link, forwards });
    for (const f of forwards) await setForward(runtime, this.#container, '-A', f);
    await rest.request('DELETE', '/port', { query: { result_id: resultId }, allowError: true });
    for (const f of forwards)
      await rest.post('/port', { port: f.vpnPort, label: f.label, result_id: resultId });
    this.#o.log.info(
      {
        event: 'vpn.ports_forwarded',
        result_id: resultId,
        ports: forwards.map((f) => ({ port: f.port, label: f.label, vpn_port: f.vpnPort })),
      },
      'algorithm ports forwarded on the VPN',
    );
  }

  /** After the run: drop its forwards and its port registrations. Never throws. */
  async releaseRun(resultId: number): Promise<void> {
    const state = this.#runs.get(resultId);
    if (!state) return;
    const { runtime, rest } = this.#o;
    this.#runs.delete(resultId);
    for (const f of state.forwards) {
      this.#ports.release(f.vpnPort);
      await setForward(runtime, this.#container, '-D', f).catch(() => undefined);
    }
    await dropLink(runtime, this.#container, state.link);
    this.#links.release(state.link);
    await rest
      .request('DELETE', '/port', { query: { result_id: resultId }, allowError: true })
      .catch(() => undefined);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#renewTimer) clearTimeout(this.#renewTimer);
    if (this.#watchTimer) clearTimeout(this.#watchTimer);
    await this.#o.runtime.removeContainerIfExists(this.#container).catch(() => undefined);
  }

  // ---- the client container ----------------------------------------------------------------------------------

  #clientEnd(): ClientEnd {
    if (!this.#client) throw new Error('the VPN client has no address');
    return this.#client;
  }

  async #startClient(): Promise<void> {
    const { runtime, log, names, network, networkSubnet, vpnSubnet } = this.#o;
    await runtime.removeContainerIfExists(this.#container);
    await runtime.runContainer(vpnClientSpec(names, network, this.#o.image));
    await runtime.connectContainerToNetwork(this.#container, this.#o.outsideNetwork ?? 'bridge');
    const gateway = await addressIn(runtime, this.#container, networkSubnet);
    if (!gateway) throw new Error(`the VPN client has no address on ${network}`);
    const privateIf = await interfaceWith(runtime, this.#container, gateway);
    this.#client = { container: this.#container, gateway, privateIf, vpnSubnet };
    for (const rule of vpnClientFirewall(vpnSubnet))
      await execOrThrow(runtime, this.#container, ['iptables', ...rule]);
    await execOrThrow(runtime, this.#container, writeConfigCommand(this.#config));
    await this.#awaitTunnel();
    // Links and forwards of runs in progress (after the container was replaced).
    for (const state of this.#runs.values()) {
      await connectLink(runtime, this.#client, state.helper, state.link).catch(() => undefined);
      for (const f of state.forwards)
        await setForward(runtime, this.#container, '-A', f).catch(() => undefined);
    }
    log.info(
      { event: 'vpn.connected', vpn_ip: this.#address, container: this.#container },
      'connected to the VPN',
    );
  }

  async #awaitTunnel(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && !this.#closed) {
      const address = await tunnelAddress(this.#o.runtime, this.#container);
      if (address) {
        await this.#announce(address);
        return;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(
      `the VPN tunnel did not come up within ${timeoutMs / 1000} s (is the VPN server reachable from this host?)`,
    );
  }

  async #announce(address: string): Promise<void> {
    if (address === this.#address) return;
    this.#address = address;
    await this.#o.rest.patch(`/node/${this.#o.nodeId}`, { ip: address });
    this.#o.log.info({ event: 'vpn.address', vpn_ip: address }, 'VPN address registered with the server');
  }

  /** Checks the client container and its address; replaces the container when it is gone. */
  #watch(): void {
    const interval = this.#o.watchIntervalMs ?? 10_000;
    this.#watchTimer = setTimeout(() => {
      void (async () => {
        if (this.#closed) return;
        try {
          const state = await this.#o.runtime.inspectContainer(this.#container);
          if (!state?.running) {
            this.#o.log.warn(
              { event: 'vpn.client_gone' },
              'the VPN client container stopped; starting it again',
            );
            await this.#startClient();
          } else {
            const address = await tunnelAddress(this.#o.runtime, this.#container);
            if (address) await this.#announce(address);
          }
        } catch (error) {
          this.#o.log.warn({ event: 'vpn.watch_failed', err: String(error) }, 'VPN check failed; retrying');
        }
        if (!this.#closed) this.#watch();
      })();
    }, interval);
    this.#watchTimer.unref();
  }

  // ---- renewal ------------------------------------------------------------------------------------------------

  #scheduleRenewal(): void {
    const { delayMs, notAfter } = renewalDelayMs(this.#config);
    this.#o.log.info(
      { event: 'vpn.renewal_scheduled', not_after: new Date(notAfter).toISOString(), in_ms: delayMs },
      'VPN certificate renewal scheduled',
    );
    this.#renewTimer = setTimeout(() => void this.renew(), delayMs);
    this.#renewTimer.unref();
  }

  /** Renews the certificate now (`POST /vpn/update`) and reloads the client with it. */
  async renew(): Promise<void> {
    if (this.#closed) return;
    try {
      this.#config = await renewVpnConfig(this.#o.rest, this.#config);
      await execOrThrow(this.#o.runtime, this.#container, writeConfigCommand(this.#config));
      // OpenVPN runs again with the new configuration; the forwards stay (they match the interface name).
      await execOrThrow(this.#o.runtime, this.#container, RESTART_OPENVPN);
      this.#address = undefined;
      await this.#awaitTunnel();
      this.#o.log.info({ event: 'vpn.renewed' }, 'VPN certificate renewed');
      this.#scheduleRenewal();
    } catch (error) {
      this.#o.log.warn(
        { event: 'vpn.renew_failed', err: String(error) },
        'VPN renewal failed; retrying in 60 s',
      );
      this.#renewTimer = setTimeout(() => void this.renew(), 60_000);
      this.#renewTimer.unref();
    }
  }
}
