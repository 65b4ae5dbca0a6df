import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeUdpPort, startTestApp, until, type TestApp } from '@federa/testing';

/**
 * The VPN for real: the server runs OpenVPN (local mode), two "nodes" are containers of the VPN client image
 * (federa/vpn-client:local, scripts/build-images.sh) on a network of their own, connected with the
 * configurations `GET /vpn` issued. They reach each other over the tunnel; a deleted node is cut off.
 */
const run = promisify(execFile);
const docker = async (...args: string[]): Promise<string> => (await run('docker', args)).stdout.trim();
const TAG = `federa-vpn-test-${process.pid}-${Date.now().toString(36)}`;

let t: TestApp;
let dir: string;
let gateway: string;
const containers: string[] = [];
/** What OpenVPN printed, as the server logs it (`vpn.server_output`). */
const vpnOutput: string[] = [];

async function startClient(name: string, config: string): Promise<string> {
  const file = join(dir, `${name}.ovpn`);
  writeFileSync(file, config, { mode: 0o600 });
  const id = await docker(
    'run',
    '-d',
    '--name',
    `${TAG}-${name}`,
    '--label',
    `federa.test=${TAG}`,
    '--network',
    TAG,
    '--cap-add',
    'NET_ADMIN',
    '--device',
    '/dev/net/tun',
    '-v',
    `${file}:/etc/openvpn/client.conf:ro`,
    'federa/vpn-client:local',
    'openvpn',
    '--config',
    '/etc/openvpn/client.conf',
  );
  containers.push(id);
  return id;
}

/** The container's VPN address, or undefined while it has no tunnel. */
async function vpnAddress(id: string): Promise<string | undefined> {
  const out = await docker('exec', id, '/bin/ip', '-4', '-o', 'addr', 'show', 'dev', 'tun0').catch(() => '');
  return /inet (\d+\.\d+\.\d+\.\d+)\//.exec(out)?.[1];
}

/** The container's VPN address once its tunnel is up. */
async function tunnelAddress(id: string, timeoutMs = 30_000): Promise<string> {
  try {
    return (await until(
      'a tunnel',
      () => vpnAddress(id),
      (a) => a !== undefined,
      timeoutMs,
      250,
    ))!;
  } catch {
    throw new Error(`no tunnel in ${id}: ${await docker('logs', '--tail', '20', id).catch(() => '')}`);
  }
}

/** Whether something in the container listens on TCP `port` (/proc/net/tcp and tcp6: local port in hex, state 0A). */
async function listens(id: string, port: number): Promise<boolean> {
  const table = await docker('exec', id, 'sh', '-c', 'cat /proc/net/tcp /proc/net/tcp6 2>/dev/null').catch(
    () => '',
  );
  const local = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return table.split('\n').some((row) => {
    const [, address, , state] = row.trim().split(/\s+/);
    return address?.endsWith(local) === true && state === '0A';
  });
}

const pings = async (from: string, to: string): Promise<boolean> =>
  run('docker', ['exec', from, 'ping', '-c', '1', '-W', '2', to]).then(
    () => true,
    () => false,
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'federa-vpn-tunnel-'));
  await docker('network', 'create', '--label', `federa.test=${TAG}`, TAG);
  gateway = await docker('network', 'inspect', '-f', '{{(index .IPAM.Config 0).Gateway}}', TAG);
  t = await startTestApp({
    log: pino(
      { level: 'debug' },
      {
        write: (line: string) => {
          const entry = JSON.parse(line) as { event?: string; line?: string };
          if (entry.event === 'vpn.server_output' && entry.line) vpnOutput.push(entry.line);
        },
      },
    ),
    config: {
      vpn: {
        host: gateway,
        port: await freeUdpPort(),
        subnet: '10.239.0.0/16',
        directory: join(dir, 'vpn'),
        run_server: true,
      },
    },
  });
  await t.ctx.vpn?.ready();
}, 60_000);

afterAll(async () => {
  if (containers.length) await run('docker', ['rm', '-f', ...containers]).catch(() => undefined);
  await run('docker', ['network', 'rm', TAG]).catch(() => undefined);
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the VPN between nodes', () => {
  it('connects two nodes with their own certificates; TCP and ping cross it; a deleted node is cut off', async () => {
    const orgA = await t.fx.organization();
    const orgB = await t.fx.organization();
    const collab = await t.fx.collaboration([orgA, orgB]);
    const nodeA = await t.fx.node(orgA, collab);
    const nodeB = await t.fx.node(orgB, collab);
    const configA = (await t.api('GET', '/vpn', { token: await nodeA.token() })).body.ovpn_config as string;
    const configB = (await t.api('GET', '/vpn', { token: await nodeB.token() })).body.ovpn_config as string;
    const a = await startClient('a', configA);
    const b = await startClient('b', configB);
    const ipA = await tunnelAddress(a);
    const ipB = await tunnelAddress(b);
    expect(ipA).toMatch(/^10\.239\./);
    expect(ipB).toMatch(/^10\.239\./);
    expect(ipA).not.toBe(ipB);

    // TCP over the tunnel: B listens, A sends.
    await docker('exec', '-d', b, 'sh', '-c', 'nc -l -p 7000 > /tmp/received');
    await until('B listening on port 7000', () => listens(b, 7000), Boolean, 10_000, 100);
    await docker('exec', a, 'sh', '-c', `echo hello-over-vpn | nc -w 3 ${ipB} 7000`);
    await expect
      .poll(() => docker('exec', b, 'cat', '/tmp/received'), { timeout: 5000 })
      .toBe('hello-over-vpn');
    expect(await pings(b, ipA)).toBe(true);

    // Deleting node B revokes its certificate and disconnects it; it cannot come back.
    expect((await t.api('DELETE', `/node/${nodeB.id}`, { token: t.rootToken })).status).toBe(200);
    await expect.poll(() => pings(a, ipB), { timeout: 20_000, interval: 500 }).toBe(false);
    const again = await startClient('b-again', configB);
    const from = await docker(
      'inspect',
      '-f',
      `{{(index .NetworkSettings.Networks "${TAG}").IPAddress}}`,
      again,
    );
    await until(
      `the server refusing the revoked certificate of ${from}`,
      () => vpnOutput.filter((l) => l.includes(`${from}:`) && /revoked/i.test(l)),
      (refusals) => refusals.length > 0,
      30_000,
      100,
    );
    expect(await vpnAddress(again)).toBeUndefined();
  }, 90_000);
});
