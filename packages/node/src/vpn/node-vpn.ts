/**
 * The node's side of the VPN between algorithms (docs/vpn.md, "On the node").
 *
 * One VPN client container per node (`<prefix>-<node>-vpn-client`, image federa/vpn-client:local) sits on the
 * node's private network and on the engine's default bridge (its way to the VPN server). Algorithm containers get
 * a route for the VPN subnet through it and nothing else: no internet still. Each port an algorithm image
 * declares is forwarded from the node's VPN address to the algorithm (DNAT in the client container), registered
 * with `POST /port`, and dropped when the run ends. The node's VPN address goes to the server with `PATCH /node`.
 * The certificate is renewed before a third of its lifetime is left; OpenVPN itself reconnects after a cut.
 */
import { X509Certificate, randomInt } from 'node:crypto';
import type { Logger } from 'pino';

import type { ContainerRuntime } from '../runtime/index.js';
import type { NodeNames } from '../runs/naming.js';
import type { RestClient } from '../server-client/rest-client.js';
import { ServerRequestError } from '../errors.js';
import { ipv4InSubnet, parseIpv4Subnet } from '@federa/common';

export const DEFAULT_VPN_CLIENT_IMAGE = 'federa/vpn-client:local';
/** Network helpers of a VPN node need iproute2 (VXLAN links): the VPN image, whose default command sleeps. */
export const VPN_HELPER_IMAGE = 'federa/vpn:local';
/** The port forwarded when an image declares none (as vantage6 3.x). */
export const DEFAULT_ALGORITHM_PORT = 8888;
const CONFIG_PATH = '/run/federa-vpn.ovpn';
const FIRST_VPN_PORT = 49152;
const LAST_VPN_PORT = 65534;

export interface AlgorithmPort {
  readonly port: number;
  readonly label: string | null;
}

interface Forward extends AlgorithmPort {
  readonly vpnPort: number;
  readonly target: string;
}

interface RunVpnState {
  readonly helper: string;
  readonly link: Link;
  readonly forwards: readonly Forward[];
}

/**
 * The point-to-point link between a run's network namespace and the VPN client: a VXLAN device on each side,
 * carried over the private network. Docker drops packets on an internal network whose addresses are not of
 * that network, so VPN traffic travels inside it (docs/vpn.md, "On the node").
 */
interface Link {
  readonly index: number;
  readonly vni: number;
  readonly device: string;
  /** Address of the run's side, and of the client's side (a /30 of 169.254.0.0/16). */
  readonly runAddress: string;
  readonly clientAddress: string;
  readonly helperPrivate: string;
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

/** Ports an image declares: `EXPOSE`d TCP ports, with the label `p<port>` as their label; none → the default. */
export function declaredPorts(
  exposed: readonly string[],
  labels: Readonly<Record<string, string>>,
): AlgorithmPort[] {
  const ports = exposed
    .map((p) => /^(\d+)(?:\/(tcp|udp))?$/.exec(p))
    .filter((m): m is RegExpExecArray => m !== null && (m[2] ?? 'tcp') === 'tcp')
    .map((m) => Number(m[1]))
    .filter((p) => p > 0 && p < 65536);
  const unique = [...new Set(ports)];
  if (unique.length === 0)
    return [{ port: DEFAULT_ALGORITHM_PORT, label: labels[`p${DEFAULT_ALGORITHM_PORT}`] ?? null }];
  return unique.map((port) => ({ port, label: labels[`p${port}`] ?? null }));
}

export class NodeVpn {
  readonly #o: NodeVpnOptions;
  readonly #container: string;
  readonly #runs = new Map<number, RunVpnState>();
  readonly #usedPorts = new Set<number>();
  readonly #usedLinks = new Set<number>();
  #config = '';
  #address: string | undefined;
  #gateway: string | undefined;
  #privateIf: string | undefined;
  #renewTimer: NodeJS.Timeout | undefined;
  #watchTimer: NodeJS.Timeout | undefined;
  #closed = false;

  private constructor(options: NodeVpnOptions) {
    this.#o = options;
    this.#container = `${options.names.prefix}-${options.names.node}-vpn-client`;
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
      config = await fetchConfig(options.rest);
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
    const helperPrivate = await this.#addressOf(helper, this.#o.networkSubnet);
    if (!helperPrivate) throw new Error(`the network helper ${helper} has no address on ${this.#o.network}`);
    const link = this.#newLink(helperPrivate);
    await this.#connect(helper, link);
    const forwards: Forward[] = ports.map((p) => ({
      ...p,
      vpnPort: this.#freePort(),
      target: link.runAddress,
    }));
    this.#runs.set(resultId, { helper, link, forwards });
    for (const f of forwards) await this.#forward('-A', f);
    await this.#o.rest.request('DELETE', '/port', { query: { result_id: resultId }, allowError: true });
    for (const f of forwards)
      await this.#o.rest.post('/port', { port: f.vpnPort, label: f.label, result_id: resultId });
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
    this.#runs.delete(resultId);
    for (const f of state.forwards) {
      this.#usedPorts.delete(f.vpnPort);
      await this.#forward('-D', f).catch(() => undefined);
    }
    await this.#o.runtime
      .exec(this.#container, ['ip', 'link', 'del', state.link.device])
      .catch(() => undefined);
    this.#usedLinks.delete(state.link.index);
    await this.#o.rest
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

  async #startClient(): Promise<void> {
    const { runtime, log } = this.#o;
    await runtime.removeContainerIfExists(this.#container);
    await runtime.runContainer({
      name: this.#container,
      image: this.#o.image ?? DEFAULT_VPN_CLIENT_IMAGE,
      env: {},
      mounts: [],
      network: this.#o.network,
      labels: {
        'vantage6-type': 'vpn-client',
        node: this.#o.names.node,
        'federa.prefix': this.#o.names.prefix,
      },
      capAdd: ['NET_ADMIN'],
      devices: ['/dev/net/tun'],
      sysctls: { 'net.ipv4.ip_forward': '1' },
      // OpenVPN runs again whenever it stops (a new configuration is loaded by stopping it).
      cmd: [
        'sh',
        '-c',
        `while [ ! -s ${CONFIG_PATH} ]; do sleep 0.2; done; while true; do openvpn --config ${CONFIG_PATH}; sleep 2; done`,
      ],
    });
    await runtime.connectContainerToNetwork(this.#container, this.#o.outsideNetwork ?? 'bridge');
    this.#gateway = await this.#addressOf(this.#container, this.#o.networkSubnet);
    if (!this.#gateway) throw new Error(`the VPN client has no address on ${this.#o.network}`);
    this.#privateIf = await this.#interfaceWith(this.#container, this.#gateway);
    // Masquerade what leaves through the tunnel. Runs (on their links `fv…`) reach only other algorithms'
    // forwarded ports (the range nodes allocate them from), never the VPN server's own address; nothing is
    // forwarded between the tunnel and anything but the runs' links.
    const serverAddress = parseIpv4Subnet(this.#o.vpnSubnet).firstHost;
    for (const rule of [
      ['-t', 'nat', '-A', 'POSTROUTING', '-o', 'tun0', '-j', 'MASQUERADE'],
      ['-P', 'FORWARD', 'DROP'],
      ['-A', 'FORWARD', '-i', 'fv+', '-d', serverAddress, '-j', 'DROP'],
      [
        '-A',
        'FORWARD',
        '-i',
        'fv+',
        '-o',
        'tun0',
        '-p',
        'tcp',
        '--dport',
        `${FIRST_VPN_PORT}:${LAST_VPN_PORT}`,
        '-j',
        'ACCEPT',
      ],
      [
        '-A',
        'FORWARD',
        '-i',
        'fv+',
        '-o',
        'tun0',
        '-m',
        'state',
        '--state',
        'ESTABLISHED,RELATED',
        '-j',
        'ACCEPT',
      ],
      ['-A', 'FORWARD', '-i', 'tun0', '-o', 'fv+', '-j', 'ACCEPT'],
    ])
      await this.#exec(this.#container, ['iptables', ...rule]);
    await this.#writeConfig();
    await this.#awaitTunnel();
    // Links and forwards of runs in progress (after the container was replaced).
    for (const state of this.#runs.values()) {
      await this.#connect(state.helper, state.link).catch(() => undefined);
      for (const f of state.forwards) await this.#forward('-A', f).catch(() => undefined);
    }
    log.info(
      { event: 'vpn.connected', vpn_ip: this.#address, container: this.#container },
      'connected to the VPN',
    );
  }

  async #writeConfig(): Promise<void> {
    await this.#exec(this.#container, [
      'sh',
      '-c',
      `umask 077; printf '%s' "$1" > ${CONFIG_PATH}.new && mv ${CONFIG_PATH}.new ${CONFIG_PATH}`,
      'sh',
      this.#config,
    ]);
  }

  async #awaitTunnel(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && !this.#closed) {
      const address = await this.#tunnelAddress();
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

  async #tunnelAddress(): Promise<string | undefined> {
    const r = await this.#o.runtime
      .exec(this.#container, ['ip', '-4', '-o', 'addr', 'show', 'dev', 'tun0'])
      .catch(() => undefined);
    return r && r.exitCode === 0 ? /inet (\d+\.\d+\.\d+\.\d+)\//.exec(r.output)?.[1] : undefined;
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
            const address = await this.#tunnelAddress();
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
    const cert = certificateOf(this.#config);
    const lifetime = cert.notAfter - cert.notBefore;
    const renewAt = cert.notAfter - lifetime / 3;
    const delay = Math.max(1000, Math.min(renewAt - Date.now(), 2 ** 31 - 1));
    this.#o.log.info(
      { event: 'vpn.renewal_scheduled', not_after: new Date(cert.notAfter).toISOString(), in_ms: delay },
      'VPN certificate renewal scheduled',
    );
    this.#renewTimer = setTimeout(() => void this.renew(), delay);
    this.#renewTimer.unref();
  }

  /** Renews the certificate now (`POST /vpn/update`) and reloads the client with it. */
  async renew(): Promise<void> {
    if (this.#closed) return;
    try {
      const answer = await this.#o.rest.post<{ ovpn_config: string }>('/vpn/update', {
        vpn_config: this.#config,
      });
      this.#config = answer.ovpn_config;
      await this.#writeConfig();
      // OpenVPN runs again with the new configuration; the forwards stay (they match the interface name).
      await this.#exec(this.#container, ['sh', '-c', 'kill $(pidof openvpn) 2>/dev/null || true']);
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

  // ---- helpers ------------------------------------------------------------------------------------------------

  #newLink(helperPrivate: string): Link {
    let index = 1;
    while (this.#usedLinks.has(index)) index++;
    if (index > 16_000) throw new Error('too many runs with VPN links at once');
    this.#usedLinks.add(index);
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

  /** Both ends of a run's link, and the route of the VPN subnet through it in the run's namespace. */
  async #connect(helper: string, link: Link): Promise<void> {
    if (!this.#gateway || !this.#privateIf) throw new Error('the VPN client has no address');
    const helperIf = await this.#interfaceWith(helper, link.helperPrivate);
    const vxlan = (device: string, local: string, remote: string, dev: string) => [
      'ip',
      'link',
      'add',
      device,
      'type',
      'vxlan',
      'id',
      String(link.vni),
      'local',
      local,
      'remote',
      remote,
      'dstport',
      '4789',
      'dev',
      dev,
    ];
    await this.#o.runtime.exec(helper, ['ip', 'link', 'del', 'fvpn']).catch(() => undefined);
    await this.#exec(helper, vxlan('fvpn', link.helperPrivate, this.#gateway, helperIf));
    await this.#exec(helper, ['ip', 'addr', 'add', `${link.runAddress}/30`, 'dev', 'fvpn']);
    await this.#exec(helper, ['ip', 'link', 'set', 'fvpn', 'up']);
    await this.#exec(helper, ['ip', 'route', 'replace', this.#o.vpnSubnet, 'via', link.clientAddress]);
    await this.#o.runtime.exec(this.#container, ['ip', 'link', 'del', link.device]).catch(() => undefined);
    await this.#exec(this.#container, vxlan(link.device, this.#gateway, link.helperPrivate, this.#privateIf));
    await this.#exec(this.#container, ['ip', 'addr', 'add', `${link.clientAddress}/30`, 'dev', link.device]);
    await this.#exec(this.#container, ['ip', 'link', 'set', link.device, 'up']);
  }

  async #forward(action: '-A' | '-D', f: Forward): Promise<void> {
    await this.#exec(this.#container, [
      'iptables',
      '-t',
      'nat',
      action,
      'PREROUTING',
      '-i',
      'tun0',
      '-p',
      'tcp',
      '--dport',
      String(f.vpnPort),
      '-j',
      'DNAT',
      '--to-destination',
      `${f.target}:${f.port}`,
    ]);
  }

  #freePort(): number {
    for (let i = 0; i < 1000; i++) {
      const p = randomInt(FIRST_VPN_PORT, LAST_VPN_PORT + 1);
      if (!this.#usedPorts.has(p)) {
        this.#usedPorts.add(p);
        return p;
      }
    }
    throw new Error('no free VPN port left');
  }

  async #addressOf(container: string, subnet: string): Promise<string | undefined> {
    const r = await this.#exec(container, ['ip', '-4', '-o', 'addr']);
    const addresses = [...r.output.matchAll(/inet (\d+\.\d+\.\d+\.\d+)\//g)].map((m) => m[1] as string);
    return addresses.find((a) => ipv4InSubnet(a, subnet));
  }

  async #interfaceWith(container: string, address: string): Promise<string> {
    const r = await this.#exec(container, ['ip', '-4', '-o', 'addr']);
    const line = r.output.split('\n').find((l) => l.includes(`inet ${address}/`));
    const name = line?.split(/\s+/)[1]?.replace(/@.*$/, '');
    if (!name) throw new Error(`no interface with ${address} in ${container}`);
    return name;
  }

  async #exec(container: string, cmd: readonly string[]): Promise<{ output: string }> {
    const r = await this.#o.runtime.exec(container, cmd);
    if (r.exitCode !== 0)
      throw new Error(
        `'${cmd.slice(0, 4).join(' ')}…' failed in ${container} (${r.exitCode}): ${r.output.trim()}`,
      );
    return r;
  }
}

async function fetchConfig(rest: RestClient): Promise<string> {
  const answer = await rest.get<{ ovpn_config?: unknown }>('/vpn');
  if (typeof answer.ovpn_config !== 'string' || !answer.ovpn_config.includes('<cert>'))
    throw new Error('the server answered GET /vpn without a usable configuration');
  return answer.ovpn_config;
}

function certificateOf(config: string): { notBefore: number; notAfter: number } {
  const pem = /<cert>\n([\s\S]*?)\n<\/cert>/.exec(config)?.[1];
  if (!pem) throw new Error('the VPN configuration holds no certificate');
  const cert = new X509Certificate(pem);
  return { notBefore: Date.parse(cert.validFrom), notAfter: Date.parse(cert.validTo) };
}
