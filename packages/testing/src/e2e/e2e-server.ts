/**
 * End-to-end set-up, all real: the Federa server (the test app on a throwaway database, listening on 127.0.0.1 with
 * socket.io), and organizations, a collaboration and nodes made through the REST API. Nodes are started with
 * {@link startE2eNode} (in-process) or {@link createNodeProcess} (a process), running algorithms in Docker.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppContext, SocketServer } from '@federa/server';
import { Fixtures } from '../fixtures.js';
import { startTestServer, type LogLine, type TestServer } from '../test-server.js';

export interface E2eServer {
  /** The server as {@link startTestServer} started it. */
  readonly server: TestServer;
  readonly ctx: AppContext;
  readonly sockets: SocketServer;
  /** Rows made straight in the server's database. */
  readonly fx: Fixtures;
  readonly rootToken: string;
  /** The server's JSON log lines so far. */
  readonly logs: LogLine[];
  readonly url: string;
  readonly port: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test helper: JSON bodies of many shapes
  api<T = any>(
    method: string,
    path: string,
    body?: unknown,
    token?: string,
  ): Promise<{ status: number; body: T }>;
  /** A new temporary folder named `<prefix>…`, removed by {@link E2eServer.close} (files of its nodes and data). */
  tempDir(prefix: string): string;
  /** Stops the server and removes its folders and those of {@link E2eServer.tempDir}. */
  close(): Promise<void>;
}

export interface E2eServerOptions {
  /** Keys of the server configuration on top of the test server's (e.g. `vpn`, `run_log_max_kb`). */
  readonly config?: Record<string, unknown>;
  /** The folder of the server's audit log (default: `audit` in its data folder). */
  readonly auditDir?: string;
  /** The port to listen on (default: any free port). */
  readonly port?: number;
}

/**
 * The server of an end-to-end test: a real server started as `vserver-local start` does ({@link startTestServer}),
 * on any free port. `listen`: the address to listen on; a node in a container needs `0.0.0.0` (it comes from the
 * Docker bridge).
 */
export async function startE2eServer(
  listen = '127.0.0.1',
  options: E2eServerOptions = {},
): Promise<E2eServer> {
  const server = await startTestServer({
    ip: listen,
    ...(options.port !== undefined ? { port: options.port } : {}),
    config: {
      ...options.config,
      ...(options.auditDir !== undefined ? { audit: { directory: options.auditDir } } : {}),
    },
  });
  const { handle, rootToken } = server;
  const folders: string[] = [];
  const url = `http://127.0.0.1:${handle.port}`;
  return {
    server,
    ctx: handle.ctx,
    sockets: handle.sockets,
    fx: new Fixtures(handle.ctx),
    rootToken,
    logs: server.logs,
    url,
    port: handle.port,
    api: async (method, path, body, token = rootToken) => {
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
    tempDir: (prefix) => {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      folders.push(dir);
      return dir;
    },
    close: async () => {
      await server.close();
      for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Federation {
  readonly collaborationId: number;
  readonly orgs: readonly { id: number; nodeId: number; apiKey: string; csv: string }[];
}

/**
 * Organizations (the root user's own and one new one per further CSV, at least two), a collaboration, and a node
 * for each, through the API.
 */
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
  const orgIds = [me.organization.id];
  for (let i = 1; i < Math.max(2, csvs.length); i++) {
    const other = must(
      await s.api<{ id: number }>('POST', '/organization', {
        name: i === 1 ? `org-${tag}` : `org-${tag}-${i}`,
      }),
      'organization',
    );
    orgIds.push(other.id);
  }
  const collab = must(
    await s.api<{ id: number }>('POST', '/collaboration', {
      name: `collab-${tag}`,
      organization_ids: orgIds,
      encrypted,
    }),
    'collaboration',
  );
  const dir = s.tempDir(`federa-e2e-${tag}-`);
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
