import type { IssuedCertificate } from './certificate-authority.js';
import type { Ipv4Subnet } from '@federa/common';

export interface OpenVpnEndpoint {
  host: string;
  port: number;
  proto: 'udp' | 'tcp';
}

/**
 * The OpenVPN server's configuration (docs/vpn.md#how-it-is-built). Files are named relative to the VPN
 * folder (OpenVPN runs with `--cd` there). Clients reach each other through the server (`client-to-client`);
 * a certificate whose serial has a file in `revoked/` is refused (`crl-verify … dir`).
 */
export function serverConfig(options: {
  endpoint: OpenVpnEndpoint;
  subnet: Ipv4Subnet;
  /** Unix socket of the management interface, used to disconnect a revoked node at once. */
  managementSocket: string;
}): string {
  const { endpoint, subnet } = options;
  return [
    '# Written by the Federa server at every start; edits are overwritten (docs/vpn.md).',
    'dev tun',
    `proto ${endpoint.proto === 'tcp' ? 'tcp-server' : 'udp'}`,
    `port ${endpoint.port}`,
    'topology subnet',
    `server ${subnet.network} ${subnet.netmask}`,
    'client-to-client',
    // A node keeps its address across restarts of the VPN server (its peers may hold it).
    'ifconfig-pool-persist ipp.txt 1',
    'ca ca.crt',
    'cert server.crt',
    'key server.key',
    'dh none',
    'tls-crypt tls-crypt.key',
    'tls-version-min 1.2',
    'remote-cert-tls client',
    'crl-verify revoked dir',
    // Clients notice a lost server within 30 s, and at once when it restarts (it tells them, udp only).
    'keepalive 10 30',
    ...(endpoint.proto === 'udp' ? ['explicit-exit-notify 1'] : []),
    'persist-key',
    'persist-tun',
    `management ${options.managementSocket} unix`,
    'verb 3',
    '',
  ].join('\n');
}

/** A node's client configuration, everything inline: what `GET /vpn` answers as `ovpn_config`. */
export function clientConfig(options: {
  endpoint: OpenVpnEndpoint;
  caCertificate: string;
  tlsCryptKey: string;
  issued: IssuedCertificate;
}): string {
  const { endpoint, issued } = options;
  return [
    '# Federa VPN client configuration (docs/vpn.md). Keep it secret: it holds a private key.',
    `# valid until ${issued.notAfter.toISOString()}`,
    'client',
    'dev tun',
    `proto ${endpoint.proto === 'tcp' ? 'tcp-client' : 'udp'}`,
    `remote ${endpoint.host} ${endpoint.port}`,
    'nobind',
    'persist-key',
    'persist-tun',
    'remote-cert-tls server',
    'tls-version-min 1.2',
    'resolv-retry infinite',
    'connect-retry 2 30',
    'verb 3',
    `<ca>\n${options.caCertificate.trim()}\n</ca>`,
    `<cert>\n${issued.certificate.trim()}\n</cert>`,
    `<key>\n${issued.privateKey.trim()}\n</key>`,
    `<tls-crypt>\n${options.tlsCryptKey.trim()}\n</tls-crypt>`,
    '',
  ].join('\n');
}
