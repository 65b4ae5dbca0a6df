/**
 * End to end, all real: the VPN between algorithms (docs/vpn.md). A server running OpenVPN (local mode), two
 * nodes on this machine each with its own private network and VPN client container, and the example algorithm
 * federa/vpn-echo:local (scripts/build-algorithms.sh), whose image declares two labelled ports. A master at
 * organization A starts a sub-task at B, finds B's address of each label and exchanges data with it over TCP on
 * both ports; neither algorithm reaches anything else. Plus: no VPN without vpn_subnet; a node restart brings the
 * tunnel back; a certificate is renewed before it expires.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64 } from '@federa/common';

import {
  createFederation,
  dockerBridgeGateway,
  type E2eServer,
  type Federation,
  freeUdpPort,
  removeNodeObjects,
  startE2eNode,
  startE2eServer,
  type StartedNode,
  until,
} from '@federa/testing';

const tag = `vpn${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
const SUBNET = '10.240.0.0/16';
const IMAGE = 'federa/vpn-echo:local';

let server: E2eServer;
let fed: Federation;
let vpnDir: string;
let gateway: string;
const nodes: StartedNode[] = [];
const logs: string[][] = [[], []];

const sh = (args: string[]): string => execFileSync('docker', args, { encoding: 'utf8' }).trim();

async function startNode(i: number, extra = `  vpn_subnet: ${SUBNET}\n`): Promise<StartedNode> {
  const org = fed.orgs[i]!;
  const started = await startE2eNode(
    server,
    org,
    `${tag}-${i}`,
    false,
    extra,
    pino({ level: 'info' }, { write: (line: string) => void logs[i]!.push(line) }),
    nodes[i]?.configFile,
  );
  nodes[i] = started;
  return started;
}

interface ResultView {
  id: number;
  status: string;
  result: string | null;
  log: string | null;
  finished_at: string | null;
}

async function runTask(org: number, input: object, master = false): Promise<ResultView> {
  const body = JSON.stringify({ ...input, master, output_format: 'json' });
  const posted = await server.api<{ id: number }>('POST', '/task', {
    name: 'vpn',
    image: IMAGE,
    collaboration_id: fed.collaborationId,
    organizations: [{ id: org, input: encodeBase64(Buffer.from(`json.${body}`)) }],
  });
  expect(posted.status, JSON.stringify(posted.body)).toBe(201);
  const results = await until(
    'the run is finished',
    async () => (await server.api<ResultView[]>('GET', `/task/${posted.body.id}/result`)).body,
    (rs) => rs.length === 1 && rs[0]!.finished_at !== null,
    120_000,
    200,
  );
  return results[0]!;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON output of the example algorithm
const output = (r: ResultView): any =>
  JSON.parse(
    Buffer.from(r.result ?? '', 'base64')
      .toString()
      .replace(/^json\./, ''),
  );

const clientAddress = (i: number): string => {
  const out = sh(['exec', `federa-${tag}-${i}-vpn-client`, 'ip', '-4', '-o', 'addr', 'show', 'dev', 'tun0']);
  return /inet (\d+\.\d+\.\d+\.\d+)\//.exec(out)?.[1] ?? '';
};

beforeAll(async () => {
  vpnDir = mkdtempSync(join(tmpdir(), `federa-${tag}-vpn-`));
  gateway = dockerBridgeGateway();
  server = await startE2eServer('127.0.0.1', {
    config: {
      vpn: {
        host: gateway,
        port: await freeUdpPort(),
        subnet: SUBNET,
        directory: vpnDir,
        certificate_days: 30,
      },
    },
  });
  await server.ctx.vpn?.ready();
  fed = await createFederation(server, false, tag, ['x\n1\n', 'x\n2\n']);
  try {
    await startNode(0);
    await startNode(1);
  } catch (error) {
    // What the nodes said is the first thing anyone needs when this fails.
    console.error(logs.map((l) => l.join('')).join('\n--- next node ---\n'));
    throw error;
  }
}, 180_000);

afterAll(async () => {
  if (process.env.FEDERA_VPN_TEST_LOGS)
    for (const [i, l] of logs.entries())
      writeFileSync(`${process.env.FEDERA_VPN_TEST_LOGS}-${i}.log`, l.join(''));
  for (const n of nodes) await n?.node.stop().catch(() => undefined);
  await server?.close();
  for (let i = 0; i < 2; i++) removeNodeObjects(`${tag}-${i}`);
  rmSync(vpnDir, { recursive: true, force: true });
}, 180_000);

describe('algorithms talk to each other over the VPN', () => {
  it('each node is on the VPN and has told the server its address', async () => {
    for (let i = 0; i < 2; i++) {
      const ip = clientAddress(i);
      expect(ip).toMatch(/^10\.240\./);
      const node = await server.api<{ ip: string | null }>('GET', `/node/${fed.orgs[i]!.nodeId}`);
      expect(node.body.ip).toBe(ip);
    }
  });

  it('a master finds its sub-task by port label and exchanges data with it on both ports', async () => {
    const b = fed.orgs[1]!.id;
    const master = await runTask(
      fed.orgs[0]!.id,
      {
        method: 'exchange',
        kwargs: { organization: b, message: 'ping', outside: `${gateway}:${server.port}` },
      },
      true,
    );
    expect(master.status, master.log ?? '').toBe('completed');
    const out = output(master);
    expect(out.replies).toEqual({ alpha: 'alpha:PING (ALPHA)', beta: 'beta:PING (BETA)' });
    expect(out.served).toEqual([
      { label: 'alpha', port: 8001, received: 'ping (alpha)' },
      { label: 'beta', port: 8002, received: 'ping (beta)' },
    ]);
    // Reached at B's node address, on two different forwarded ports.
    expect(out.addresses.alpha.ip).toBe(clientAddress(1));
    expect(out.addresses.beta.ip).toBe(clientAddress(1));
    expect(out.addresses.alpha.port).not.toBe(out.addresses.beta.port);
    // The master could not reach a service of the host (the Federa API itself).
    expect(out.outside_reachable).toBe(false);
    // Ports are dropped when the runs end.
    await until(
      'the ports of the finished runs are dropped',
      async () => (await server.api<unknown[]>('GET', '/port')).body,
      (ports) => Array.isArray(ports) && ports.length === 0,
      20_000,
      200,
    );
  }, 180_000);

  it("an algorithm reaches nothing but other algorithms' ports: not the host, not the VPN server", async () => {
    for (const target of [
      `${gateway}:${server.port}`,
      `10.240.0.1:${server.port}`,
      `${clientAddress(0)}:22`,
    ]) {
      const r = await runTask(fed.orgs[1]!.id, { method: 'probe', kwargs: { target } });
      expect(r.status, r.log ?? '').toBe('completed');
      expect(output(r), target).toEqual({ reachable: false });
    }
  }, 120_000);

  it('a node restart brings its tunnel back', async () => {
    await nodes[0]!.node.stop();
    await startNode(0);
    expect(clientAddress(0)).toMatch(/^10\.240\./);
    const master = await runTask(
      fed.orgs[0]!.id,
      { method: 'exchange', kwargs: { organization: fed.orgs[1]!.id, message: 'again' } },
      true,
    );
    expect(master.status, master.log ?? '').toBe('completed');
    expect(output(master).replies.alpha).toBe('alpha:AGAIN (ALPHA)');
  }, 180_000);
});

describe('after the VPN server restarts', () => {
  it('the nodes reconnect and algorithms talk again', async () => {
    // OpenVPN stops (as in a crash of its process); the server starts it again and tells nobody.
    execFileSync('pkill', ['-TERM', '-f', `^openvpn --cd ${vpnDir}`]);
    await until(
      'the VPN server is back',
      async () => {
        try {
          execFileSync('pgrep', ['-f', `^openvpn --cd ${vpnDir}`]);
          return true;
        } catch {
          return false;
        }
      },
      (up) => up,
      30_000,
      250,
    );
    const master = await runTask(
      fed.orgs[0]!.id,
      { method: 'exchange', kwargs: { organization: fed.orgs[1]!.id, message: 'after restart' } },
      true,
    );
    expect(master.status, master.log ?? '').toBe('completed');
    expect(output(master).replies.beta).toBe('beta:AFTER RESTART (BETA)');
  }, 180_000);
});

describe('without vpn_subnet', () => {
  it('a node runs without VPN and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), `federa-${tag}-novpn-`));
    const lines: string[] = [];
    const org = { ...fed.orgs[1]!, csv: fed.orgs[1]!.csv };
    await nodes[1]!.node.stop();
    const plain = await startE2eNode(
      server,
      org,
      `${tag}-1`,
      false,
      '',
      pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }),
    );
    try {
      expect(lines.join('\n')).toContain('"event":"vpn.off"');
      expect(() =>
        execFileSync('docker', ['inspect', `federa-${tag}-1-vpn-client`], { stdio: 'ignore' }),
      ).toThrow();
    } finally {
      await plain.node.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
