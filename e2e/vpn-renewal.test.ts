/**
 * End to end, all real: a node renews its VPN certificate before it expires and stays on the VPN after the first
 * certificate's end (docs/vpn.md#on-the-node). The server issues certificates of 40 seconds here.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  createFederation,
  dockerBridgeGateway,
  type E2eServer,
  freeUdpPort,
  removeNodeObjects,
  startE2eNode,
  startE2eServer,
  type StartedNode,
  until,
} from '@federa/testing';

const tag = `vpr${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
const SUBNET = '10.241.0.0/16';
const LIFETIME_S = 40;

let server: E2eServer;
let node: StartedNode | undefined;
let vpnDir: string;
const lines: string[] = [];

const sh = (args: string[]): string => execFileSync('docker', args, { encoding: 'utf8' }).trim();
const events = (name: string): number => lines.filter((l) => l.includes(`"event":"${name}"`)).length;
const tunnelAddress = (): string => {
  try {
    const out = sh(['exec', `federa-${tag}-0-vpn-client`, 'ip', '-4', '-o', 'addr', 'show', 'dev', 'tun0']);
    return /inet (\d+\.\d+\.\d+\.\d+)\//.exec(out)?.[1] ?? '';
  } catch {
    return '';
  }
};

beforeAll(async () => {
  vpnDir = mkdtempSync(join(tmpdir(), `federa-${tag}-vpn-`));
  const gateway = dockerBridgeGateway();
  server = await startE2eServer('127.0.0.1', {
    config: {
      vpn: {
        host: gateway,
        port: await freeUdpPort(),
        subnet: SUBNET,
        directory: vpnDir,
        certificate_days: LIFETIME_S / 86_400,
      },
    },
  });
  await server.ctx.vpn?.ready();
  const fed = await createFederation(server, false, tag, ['x\n1\n', 'x\n2\n']);
  node = await startE2eNode(
    server,
    fed.orgs[0]!,
    `${tag}-0`,
    false,
    `  vpn_subnet: ${SUBNET}\n`,
    pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }),
  );
}, 180_000);

afterAll(async () => {
  await node?.node.stop().catch(() => undefined);
  await server?.close();
  removeNodeObjects(`${tag}-0`);
  rmSync(vpnDir, { recursive: true, force: true });
}, 120_000);

describe('VPN certificate renewal', () => {
  it('renews before the certificate expires and is still on the VPN after the first one has ended', async () => {
    expect(tunnelAddress()).toMatch(/^10\.241\./);
    const issued = (): string[] => {
      const all = JSON.parse(readFileSync(join(vpnDir, 'issued.json'), 'utf8')) as Record<
        string,
        { serial: string; not_after: string }[]
      >;
      return Object.values(all)
        .flat()
        .map((r) => r.not_after);
    };
    const firstEnd = Date.parse(issued()[0]!);
    // Renewed (a third of the lifetime before the end), then still connected once the first certificate expired.
    await until(
      'the certificate is renewed',
      async () => events('vpn.renewed'),
      (n) => n >= 1,
      60_000,
      500,
    );
    expect(Date.now()).toBeLessThan(firstEnd);
    await until(
      'the first certificate has expired',
      async () => Date.now(),
      (now) => now > firstEnd + 2000,
      60_000,
      500,
    );
    await until(
      'the tunnel is up with the new certificate',
      async () => tunnelAddress(),
      (ip) => ip !== '',
      30_000,
      500,
    );
    const ends = issued().map((end) => Date.parse(end));
    expect(Math.max(...ends)).toBeGreaterThan(firstEnd);
    // The client now holds a certificate that is still valid.
    const config = sh(['exec', `federa-${tag}-0-vpn-client`, 'cat', '/run/federa-vpn.ovpn']);
    const cert = new X509Certificate(/<cert>\n([\s\S]*?)\n<\/cert>/.exec(config)![1]!);
    expect(Date.parse(cert.validTo)).toBeGreaterThan(Date.now());
  }, 150_000);
});
