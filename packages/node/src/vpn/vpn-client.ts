/**
 * The node's VPN client container (`<prefix>-<node>-vpn-client`): what it runs, the firewall inside it, and how a
 * configuration reaches it (docs/vpn.md, "On the node").
 */
import { parseIpv4Subnet, vpnClientName } from '@federa/common';

import type { ContainerSpec } from '../runtime/index.js';
import type { NodeNames } from '../runs/naming.js';

export const DEFAULT_VPN_CLIENT_IMAGE = 'federa/vpn-client:local';
/** Where the client reads its OpenVPN configuration. */
const CONFIG_PATH = '/run/federa-vpn.ovpn';
/** The range nodes allocate forwarded VPN ports from. */
export const FIRST_VPN_PORT = 49152;
export const LAST_VPN_PORT = 65534;

export { vpnClientName } from '@federa/common';

/** The client on the node's private network; OpenVPN runs again whenever it stops (a new configuration is loaded by stopping it). */
export function vpnClientSpec(
  names: NodeNames,
  network: string,
  image = DEFAULT_VPN_CLIENT_IMAGE,
): ContainerSpec {
  return {
    name: vpnClientName(names),
    image,
    env: {},
    mounts: [],
    network,
    labels: { 'vantage6-type': 'vpn-client', node: names.node, 'federa.prefix': names.prefix },
    capAdd: ['NET_ADMIN'],
    devices: ['/dev/net/tun'],
    sysctls: { 'net.ipv4.ip_forward': '1' },
    cmd: [
      'sh',
      '-c',
      `while [ ! -s ${CONFIG_PATH} ]; do sleep 0.2; done; while true; do openvpn --config ${CONFIG_PATH}; sleep 2; done`,
    ],
  };
}

/**
 * The client's iptables rules: masquerade what leaves through the tunnel. Runs (on their links `fv…`) reach only
 * other algorithms' forwarded ports (the range nodes allocate them from), never the VPN server's own address;
 * nothing is forwarded between the tunnel and anything but the runs' links.
 */
export function vpnClientFirewall(vpnSubnet: string): string[][] {
  const serverAddress = parseIpv4Subnet(vpnSubnet).firstHost;
  const fromRuns = ['-A', 'FORWARD', '-i', 'fv+', '-o', 'tun0'];
  return [
    ['-t', 'nat', '-A', 'POSTROUTING', '-o', 'tun0', '-j', 'MASQUERADE'],
    ['-P', 'FORWARD', 'DROP'],
    ['-A', 'FORWARD', '-i', 'fv+', '-d', serverAddress, '-j', 'DROP'],
    [...fromRuns, '-p', 'tcp', '--dport', `${FIRST_VPN_PORT}:${LAST_VPN_PORT}`, '-j', 'ACCEPT'],
    [...fromRuns, '-m', 'state', '--state', 'ESTABLISHED,RELATED', '-j', 'ACCEPT'],
    ['-A', 'FORWARD', '-i', 'tun0', '-o', 'fv+', '-j', 'ACCEPT'],
  ];
}

/** The command that writes `config` where the client reads it (atomically, readable by root only). */
export function writeConfigCommand(config: string): string[] {
  return [
    'sh',
    '-c',
    `umask 077; printf '%s' "$1" > ${CONFIG_PATH}.new && mv ${CONFIG_PATH}.new ${CONFIG_PATH}`,
    'sh',
    config,
  ];
}

/** Stops OpenVPN in the client; its loop starts it again with the configuration in place. */
export const RESTART_OPENVPN = ['sh', '-c', 'kill $(pidof openvpn) 2>/dev/null || true'];
