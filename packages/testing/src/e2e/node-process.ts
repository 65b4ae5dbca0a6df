/**
 * A node as a real process, for tests that kill it or must see it survive: on the host (`vnode-local start`, a
 * child process) or in Docker (`vnode-local start --dockerized` in a container with the host's Docker socket, as
 * `vnode start` runs it). Both run the code of this checkout (the container mounts it read-only at /federa), so a
 * test never runs a stale node image. The server is the in-process one of e2e-server.ts.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePrivateKeyPem } from '@federa/common';
import { removeHostGuard } from '@federa/node';
import { removeNodeObjects } from '../docker.js';

export type NodeMode = 'host' | 'dockerized';

/** One line of the node's JSON log. */
export interface NodeLogLine {
  readonly event?: string;
  readonly level?: number;
  readonly msg?: string;
  readonly result_id?: number;
  readonly task_id?: number;
  readonly run_id?: number;
  readonly reason?: string;
  readonly status?: string;
  readonly [key: string]: unknown;
}

export interface NodeProcess {
  readonly mode: NodeMode;
  readonly name: string;
  /** The node's private key (PEM; empty when the collaboration is not encrypted). */
  readonly privateKeyPem: string;
  /** Starts the node (again, with the same data after a stop or kill); does not wait for it to come online. */
  start(): void;
  /** SIGKILL: no clean-up at all. */
  kill(): void;
  /** SIGTERM, then waits for the process to end. */
  stop(): Promise<void>;
  /** SIGTERM only (the test then watches what the node does with it). */
  terminate(): void;
  /** The exit code of the last start's process; null while it runs (or was ended by a signal). */
  exitCode(): number | null;
  /** Whether the node process is alive. */
  alive(): boolean;
  /** Every log line of every start so far. */
  log(): NodeLogLine[];
  /** Lines the start-line algorithm appended to /mnt/data/start-lines in the node's data volume. */
  startLines(): string[];
  /** Removes the container, Docker objects, firewall rules and files of the node. */
  remove(): Promise<void> | void;
}

export interface NodeProcessOptions {
  readonly mode: NodeMode;
  readonly name: string;
  readonly apiKey: string;
  /** The in-process server's port (it must listen on 0.0.0.0 for a dockerized node). */
  readonly serverPort: number;
  readonly encrypted: boolean;
  /** CSV text of the `default` database. */
  readonly csv: string;
}

const ROOT = join(import.meta.dirname, '../../../..');
const VNODE_LOCAL = 'packages/node/dist/bin/vnode-local.js';

const docker = (args: string[]): string =>
  execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

const parseLines = (text: string): NodeLogLine[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as NodeLogLine];
      } catch {
        return [];
      }
    });

export async function createNodeProcess(o: NodeProcessOptions): Promise<NodeProcess> {
  const dir = mkdtempSync(join(tmpdir(), `federa-np-${o.name}-`));
  const keyFile = join(dir, 'private_key.pem');
  const privateKeyPem = o.encrypted ? await generatePrivateKeyPem({ modulusBits: 2048 }) : '';
  if (o.encrypted) writeFileSync(keyFile, privateKeyPem, { mode: 0o600 });
  const csvFile = join(dir, 'default.csv');
  writeFileSync(csvFile, o.csv);
  const configFile = join(dir, `${o.name}.yaml`);
  const host = o.mode === 'host';
  writeFileSync(
    configFile,
    `application:
  api_key: ${o.apiKey}
  server_url: http://${host ? '127.0.0.1' : 'host.docker.internal'}
  port: ${o.serverPort}
  api_path: /api
  databases:
    - {label: default, uri: ${host ? csvFile : 'default.csv'}, type: csv}
  encryption: {enabled: ${o.encrypted}${host && o.encrypted ? `, private_key: ${keyFile}` : ''}}
  directories: {data: ${join(dir, 'data')}, log: ${join(dir, 'log')}}
  proxy_port: 0
  logging: {level: debug}
`,
  );
  const node = host ? hostNode(o, dir, configFile) : dockerizedNode(o, dir, keyFile, csvFile);
  return { ...node, privateKeyPem };
}

function hostNode(
  o: NodeProcessOptions,
  dir: string,
  configFile: string,
): Omit<NodeProcess, 'privateKeyPem'> {
  let child: ChildProcess | undefined;
  let out = '';
  let exited: Promise<void> = Promise.resolve();
  return {
    mode: 'host',
    name: o.name,
    start() {
      if (child && child.exitCode === null && child.signalCode === null)
        throw new Error('node running already');
      const c = spawn(process.execPath, [VNODE_LOCAL, 'start', '-c', configFile, '-n', o.name], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, PROXY_SERVER_PORT: '0' },
      });
      c.stdout?.on('data', (b: Buffer) => (out += b.toString()));
      c.stderr?.on('data', (b: Buffer) => (out += b.toString()));
      exited = new Promise((resolve) => c.once('exit', () => resolve()));
      child = c;
    },
    kill() {
      child?.kill('SIGKILL');
    },
    async stop() {
      child?.kill('SIGTERM');
      await exited;
    },
    terminate() {
      child?.kill('SIGTERM');
    },
    exitCode: () => child?.exitCode ?? null,
    alive: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    log: () => parseLines(out),
    startLines() {
      try {
        return readFileSync(join(dir, 'data', 'data', 'start-lines'), 'utf8')
          .split('\n')
          .filter(Boolean);
      } catch {
        return [];
      }
    },
    async remove() {
      child?.kill('SIGKILL');
      await removeHostGuard(`federa-guard-federa-${o.name}`);
      removeNodeObjects(o.name);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function dockerizedNode(
  o: NodeProcessOptions,
  dir: string,
  keyFile: string,
  csvFile: string,
): Omit<NodeProcess, 'privateKeyPem'> {
  const container = `federa-${o.name}-user`;
  const volume = `federa-${o.name}-user-vol`;
  let created = false;
  const running = (): boolean => {
    try {
      return docker(['inspect', '-f', '{{.State.Running}}', container]).trim() === 'true';
    } catch {
      return false;
    }
  };
  return {
    mode: 'dockerized',
    name: o.name,
    start() {
      if (created) {
        docker(['start', container]);
        return;
      }
      docker(['volume', 'create', '--label', `federa.node=${o.name}`, volume]);
      docker([
        'run',
        '-d',
        '--name',
        container,
        '--label',
        `federa.test-node=${o.name}`,
        '--add-host',
        'host.docker.internal:host-gateway',
        '-v',
        '/var/run/docker.sock:/var/run/docker.sock',
        '-v',
        `${volume}:/mnt/data`,
        '-v',
        `${dir}:/mnt/config:ro`,
        '-v',
        `${csvFile}:/mnt/default.csv:ro`,
        ...(o.encrypted
          ? ['-v', `${keyFile}:/mnt/private_key.pem:ro`, '-e', 'PRIVATE_KEY=/mnt/private_key.pem']
          : []),
        '-v',
        `${ROOT}:/federa:ro`,
        '-w',
        '/federa',
        '-e',
        `DATA_VOLUME_NAME=${volume}`,
        '-e',
        `FEDERA_NODE_CONTAINER=${container}`,
        '-e',
        'DEFAULT_DATABASE_URI=default.csv',
        'federa/base-node:local',
        'node',
        VNODE_LOCAL,
        'start',
        '-c',
        `/mnt/config/${o.name}.yaml`,
        '-n',
        o.name,
        '--dockerized',
      ]);
      created = true;
    },
    kill() {
      docker(['kill', '-s', 'KILL', container]);
    },
    async stop() {
      docker(['stop', '-t', '20', container]);
    },
    terminate() {
      docker(['kill', '-s', 'TERM', container]);
    },
    exitCode() {
      if (running()) return null;
      const code = Number(docker(['inspect', '-f', '{{.State.ExitCode}}', container]).trim());
      return Number.isInteger(code) ? code : null;
    },
    alive: running,
    log() {
      try {
        return parseLines(
          execFileSync('docker', ['logs', container], {
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'pipe'],
            maxBuffer: 256 * 1024 * 1024,
          }),
        );
      } catch {
        return [];
      }
    },
    startLines() {
      try {
        return docker([
          'run',
          '--rm',
          '-v',
          `${volume}:/d:ro`,
          'federa/helper:local',
          'cat',
          '/d/start-lines',
        ])
          .split('\n')
          .filter(Boolean);
      } catch {
        return [];
      }
    },
    remove() {
      try {
        docker(['rm', '-f', container]);
      } catch {
        /* gone */
      }
      removeNodeObjects(o.name);
      try {
        docker(['volume', 'rm', '-f', volume]);
      } catch {
        /* gone */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
