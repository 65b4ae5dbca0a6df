/** The node's OpenVPN configuration from the server, and when its certificate is due for renewal (docs/vpn.md). */
import { X509Certificate } from 'node:crypto';

import type { RestClient } from '../server-client/rest-client.js';

/** `GET /vpn`: the configuration with the node's certificate (ServerRequestError 501 when the server has no VPN). */
export async function fetchVpnConfig(rest: RestClient): Promise<string> {
  const answer = await rest.get<{ ovpn_config?: unknown }>('/vpn');
  if (typeof answer.ovpn_config !== 'string' || !answer.ovpn_config.includes('<cert>'))
    throw new Error('the server answered GET /vpn without a usable configuration');
  return answer.ovpn_config;
}

/** `POST /vpn/update`: the same configuration with a new certificate. */
export async function renewVpnConfig(rest: RestClient, config: string): Promise<string> {
  const answer = await rest.post<{ ovpn_config: string }>('/vpn/update', { vpn_config: config });
  return answer.ovpn_config;
}

/** Validity of the configuration's certificate (milliseconds since the epoch). */
export function certificateOf(config: string): { notBefore: number; notAfter: number } {
  const pem = /<cert>\n([\s\S]*?)\n<\/cert>/.exec(config)?.[1];
  if (!pem) throw new Error('the VPN configuration holds no certificate');
  const cert = new X509Certificate(pem);
  return { notBefore: Date.parse(cert.validFrom), notAfter: Date.parse(cert.validTo) };
}

/** When to renew: before a third of the certificate's lifetime is left (at least 1 s from now). */
export function renewalDelayMs(config: string, now = Date.now()): { delayMs: number; notAfter: number } {
  const cert = certificateOf(config);
  const lifetime = cert.notAfter - cert.notBefore;
  const renewAt = cert.notAfter - lifetime / 3;
  return { delayMs: Math.max(1000, Math.min(renewAt - now, 2 ** 31 - 1)), notAfter: cert.notAfter };
}
