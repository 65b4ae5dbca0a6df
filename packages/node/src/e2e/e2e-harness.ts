/**
 * End-to-end set-up, all real: the Federa server (its test harness on a throwaway database, listening on
 * 127.0.0.1 with socket.io), organizations, a collaboration and nodes made through the REST API, and nodes
 * started in-process with `startNode` running algorithms in Docker.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';

import { startTestApp, type TestApp, type TestAppOptions } from '../../../server/src/test-support/harness.js';
import { SocketServer } from '../../../server/src/socket/socket-server.js';
import { loadNodeConfig } from '../config/node-config.js';
import { startNode, type RunningNode } from '../node.js';
import type { ContainerRuntime } from '../runtime/index.js';

export interface E2eServer {
  readonly t: TestApp;
  readonly sockets: SocketServer;
  readonly url: string;
  readonly port: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test helper: JSON bodies of many shapes
  api<T = any>(
    method: string,
    path: string,
    body?: unknown,
    token?: string,
  ): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

/**
 * `listen`: the address to listen on; a node in a container needs `0.0.0.0` (it comes from the Docker bridge).
 * `options`: the test server's options (e.g. a `vpn` configuration).
 */
export async function startE2eServer(listen = '127.0.0.1', options: TestAppOptions = {}): Promise<E2eServer> {
  const sockets = new SocketServer();
  const t = await startTestApp({ ...options, events: sockets.events });
  sockets.bind(t.ctx);
  sockets.attach(t.app.server);
  await t.app.listen({ host: listen, port: 0 });
  const port = (t.app.server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    t,
    sockets,
    url,
    port,
    api: async (method, path, body, token = t.rootToken) => {
      const res = await fetch(`${url}/api${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    close: async () => {
      await sockets.close();
      await t.close();
    },
  };
}

export interface Federation {
  readonly collaborationId: number;
  readonly orgs: readonly { id: number; nodeId: number; apiKey: string; csv: string }[];
}

/** Two organizations (the root user's own and a new one), a collaboration, and a node for each, through the API. */
export async function createFederation(
  s: E2eServer,
  encrypted: boolean,
  tag: string,
  csvs: readonly string[],
): Promise<Federation> {
  const must = <T>(r: { status: number; body: T }, what: string): T => {
    if (r.status > 210) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const me = must(await s.api<{ organization: { id: number } }>('GET', '/user/1'), 'root user');
  const other = must(
    await s.api<{ id: number }>('POST', '/organization', { name: `org-${tag}` }),
    'organization',
  );
  const orgIds = [me.organization.id, other.id];
  const collab = must(
    await s.api<{ id: number }>('POST', '/collaboration', {
      name: `collab-${tag}`,
      organization_ids: orgIds,
      encrypted,
    }),
    'collaboration',
  );
  const dir = mkdtempSync(join(tmpdir(), `federa-e2e-${tag}-`));
  const orgs = [];
  for (const [i, orgId] of orgIds.entries()) {
    const node = must(
      await s.api<{ id: number; api_key: string }>('POST', '/node', {
        name: `node-${tag}-${i}`,
        organization_id: orgId,
        collaboration_id: collab.id,
      }),
      'node',
    );
    const csv = join(dir, `data-${i}.csv`);
    writeFileSync(csv, csvs[i] ?? 'age\n1\n');
    orgs.push({ id: orgId, nodeId: node.id, apiKey: node.api_key, csv });
  }
  return { collaborationId: collab.id, orgs };
}

export interface StartedNode {
  readonly node: RunningNode;
  readonly name: string;
  readonly dataDir: string;
  readonly configFile: string;
}

/** Writes a node configuration file for `org` and starts the node in-process. */
export async function startE2eNode(
  s: E2eServer,
  org: { apiKey: string; csv: string },
  name: string,
  encrypted: boolean,
  extra = '',
  log: Logger = pino({ level: process.env.FEDERA_TEST_LOG ?? 'silent' }),
  /** Reuse this configuration file (and so the data dir) instead of writing a new one. */
  existingConfigFile?: string,
  /** The container runtime (default: Docker); a test wraps it to inject a fault. */
  runtime?: ContainerRuntime,
): Promise<StartedNode> {
  const dir = mkdtempSync(join(tmpdir(), `federa-node-${name}-`));
  const configFile = existingConfigFile ?? join(dir, `${name}.yaml`);
  if (!existingConfigFile)
    writeFileSync(
      configFile,
      `application:
  api_key: ${org.apiKey}
  server_url: http://127.0.0.1
  port: ${s.port}
  api_path: /api
  databases:
    - {label: default, uri: ${org.csv}, type: csv}
  encryption: {enabled: ${encrypted}}
  directories: {data: ${join(dir, 'data')}, log: ${join(dir, 'log')}}
  proxy_port: 0
${extra}`,
    );
  const config = loadNodeConfig({ file: configFile, env: {} });
  const node = await startNode({
    config,
    log,
    keyGeneration: { modulusBits: 2048 },
    connectTimeoutMs: 15_000,
    ...(runtime ? { runtime } : {}),
  });
  return { node, name, dataDir: config.dataDir, configFile };
}

/** Removes the Docker objects of a node (network, data volume, temporary volumes, containers). */
export function removeNodeObjects(name: string, prefix = 'federa'): void {
  const sh = (args: string[]): string => {
    try {
      return execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      return '';
    }
  };
  const containers = sh(['ps', '-aq', '--filter', `label=node=${name}`])
    .split('\n')
    .filter(Boolean);
  if (containers.length) sh(['rm', '-f', ...containers]);
  sh(['network', 'rm', `${prefix}-${name}-net`]);
  const volumes = sh(['volume', 'ls', '-q', '--filter', `name=${prefix}-${name}-`])
    .split('\n')
    .filter(Boolean);
  if (volumes.length) sh(['volume', 'rm', '-f', ...volumes]);
}

/** Builds a small image from a Dockerfile text (no registry, no context files). */
export function buildImage(tag: string, dockerfile: string, files: Record<string, string> = {}): void {
  const ctx = mkdtempSync(join(tmpdir(), 'federa-image-'));
  writeFileSync(join(ctx, 'Dockerfile'), dockerfile);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(ctx, name), text);
  try {
    execFileSync('docker', ['build', '-q', '-t', tag, ctx], { stdio: ['ignore', 'ignore', 'pipe'] });
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
}

export async function until<T>(
  what: string,
  probe: () => Promise<T>,
  ok: (v: T) => boolean,
  timeoutMs = 60_000,
  everyMs = 100,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what}; last value ${JSON.stringify(v)?.slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * The host as containers on Docker's default bridge see it: the bridge's gateway (inspect leaves it empty on some
 * engines; it is then the subnet's first address).
 */
export function dockerBridgeGateway(): string {
  const text = execFileSync('docker', ['network', 'inspect', '-f', '{{json .IPAM.Config}}', 'bridge'], {
    encoding: 'utf8',
  });
  const [config] = JSON.parse(text) as { Subnet: string; Gateway?: string }[];
  if (!config) throw new Error('the default bridge has no IPAM configuration');
  return config.Gateway || config.Subnet.replace(/\.0\/\d+$/, '.1');
}
