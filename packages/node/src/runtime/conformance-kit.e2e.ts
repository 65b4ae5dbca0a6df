/**
 * What the ContainerRuntime conformance suites (conformance*.test.ts) share: the engines of this machine, the names
 * every object of a run carries, the builders of a suite for one engine, and the servers the network suite probes.
 * Not shipped (`*.e2e.ts` is left out of the build).
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ContainerHandle, ContainerRuntime, ContainerSpec } from './container-runtime.js';
import { createContainerRuntime, type RuntimeKind } from './runtime-factory.js';

export const run = promisify(execFile);
export const NODE_IMAGE = 'federa/base-node:local';
export const HELPER_IMAGE = 'federa/helper:local';
export const TEST_LABEL = 'federa.test-run';

/** A unique prefix for everything one suite creates (removed in its afterAll). */
export const runPrefix = (): string => `fedcf${randomBytes(3).toString('hex')}`;

/** Clean-ups of a suite, run last first by {@link cleanUp}. */
export type Cleanups = Array<() => Promise<unknown>>;

export async function cleanUp(cleanups: Cleanups): Promise<void> {
  for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
}

const PODMAN_USER = process.env['FEDERA_PODMAN_USER'] ?? 'federa-podman';

export interface Engine {
  readonly kind: RuntimeKind;
  readonly runtime: ContainerRuntime;
  /** Host user whose files a container's root writes (rootless: the engine's user). */
  readonly owner: { uid: number; gid: number };
  readonly setup: string;
}

function podmanUser(): { uid: number; gid: number } | undefined {
  try {
    const [uid, gid] = ['-u', '-g'].map((f) =>
      Number(execFileSync('id', [f, PODMAN_USER], { encoding: 'utf8' }).trim()),
    );
    return uid !== undefined && gid !== undefined ? { uid, gid } : undefined;
  } catch {
    return undefined;
  }
}

const podmanOwner = podmanUser();
export const ENGINES: Engine[] = [
  {
    kind: 'docker',
    runtime: createContainerRuntime({ kind: 'docker', registryTimeoutMs: 5_000 }),
    owner: { uid: 0, gid: 0 },
    setup: 'scripts/docker-engine.sh and scripts/build-images.sh (as root)',
  },
  {
    kind: 'podman',
    runtime: createContainerRuntime({
      kind: 'podman',
      socketPath:
        process.env['FEDERA_PODMAN_SOCKET'] ?? `/run/user/${podmanOwner?.uid ?? 'NONE'}/podman/podman.sock`,
      registryTimeoutMs: 5_000,
    }),
    owner: podmanOwner ?? { uid: -1, gid: -1 },
    setup: 'scripts/podman-rootless.sh (as root, after the Docker images are built)',
  },
];

/** The builders of a suite for one engine: container specs named and labelled under `prefix`, runs to the end. */
export function engineKit(engine: Engine, prefix: string, cleanups: Cleanups) {
  const { runtime, owner } = engine;
  const spec = (name: string, cmd: string[], extra: Partial<ContainerSpec> = {}): ContainerSpec => ({
    name: `${prefix}-${name}`,
    image: NODE_IMAGE,
    env: {},
    mounts: [],
    labels: { [TEST_LABEL]: prefix },
    cmd,
    ...extra,
  });
  const runToEnd = async (
    s: ContainerSpec,
  ): Promise<{ exitCode: number; logs: string; handle: ContainerHandle }> => {
    const handle = await runtime.runContainer(s);
    const { exitCode } = await runtime.waitForExit(handle, { timeoutMs: 20_000 });
    return { exitCode, logs: await runtime.logs(handle), handle };
  };
  /** A host folder the engine's containers may write (rootless: owned by the engine's user). */
  const hostDir = async (): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), `${prefix}-`));
    await chown(dir, owner.uid, owner.gid);
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  };
  return { spec, runToEnd, hostDir };
}

/** Fails with what to run when the engine does not answer or lacks an image of the suites. */
export async function requireEngine({ kind, runtime, setup }: Engine): Promise<void> {
  try {
    await runtime.ping();
  } catch (err) {
    throw new Error(`${kind} is not usable (${(err as Error).message}). Run ${setup} first.`);
  }
  for (const image of [NODE_IMAGE, HELPER_IMAGE]) {
    if (!(await runtime.imageExists(image)))
      throw new Error(`${kind}: image ${image} missing. Run ${setup}.`);
  }
}

/** Removes the containers, networks and volumes a suite made under `prefix`. */
export async function removeEngineObjects(runtime: ContainerRuntime, prefix: string): Promise<void> {
  for (const c of await runtime.listContainers({ [TEST_LABEL]: prefix })) await runtime.remove(c);
  for (const n of [`${prefix}-net`, `${prefix}-open-net`]) await runtime.removeNetwork(n);
  for (const v of await runtime.listVolumes({ prefix })) await runtime.removeVolume(v.name);
}

// Node one-liners run inside the containers.
export const TCP_PROBE = `const [h, p] = process.argv.slice(1);
const s = require('net').connect({ host: h, port: Number(p), timeout: 3000 });
s.on('connect', () => { console.log('connected'); process.exit(0); });
s.on('timeout', () => { console.log('timeout'); process.exit(2); });
s.on('error', (e) => { console.log('error ' + e.code); process.exit(1); });`;
export const HTTP_GET_RETRY = `(async () => { for (let i = 0; i < 50; i++) {
  try { const r = await fetch(process.argv[1]); console.log('body:' + (await r.text())); process.exit(0); }
  catch { await new Promise((r) => setTimeout(r, 100)); } }
  console.log('unreachable'); process.exit(1); })();`;

export async function tcpServer(host: string): Promise<{ port: number; close: () => Promise<void> }> {
  const srv = net.createServer((sock) => {
    sock.on('error', () => undefined);
    sock.end('hello\n');
  });
  await new Promise<void>((resolve, reject) => {
    srv.on('error', reject);
    srv.listen(0, host, () => resolve());
  });
  const addr = srv.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  return { port, close: () => new Promise<void>((resolve) => srv.close(() => resolve())) };
}

/** This host's first non-loopback IPv4 address (a server bound to it is "a service of the host"). */
export function hostAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.family === 'IPv4' && !a.internal && !a.address.startsWith('10.254.')) return a.address;
    }
  }
  throw new Error('this host has no non-loopback IPv4 address');
}

/**
 * "Outside": a TCP server in a network namespace of our own behind a veth pair (10.254.N.2, host side .1), so that
 * reaching it needs forwarding by the host, as the internet would. Never a public address. Runs as root.
 */
export async function startOutside(
  prefix: string,
  cleanups: Cleanups,
): Promise<{ outsideAddr: string; outsidePort: number }> {
  const ns = `${prefix}-ns`;
  const veth = `${prefix.slice(0, 10)}v`; // interface names have at most 15 characters
  const octet = Math.floor(Math.random() * 200) + 20;
  const outsideAddr = `10.254.${octet}.2`;
  const outsidePort = 7777;
  const hostSide = `10.254.${octet}.1`;
  await run('ip', ['netns', 'add', ns]);
  cleanups.push(() => run('ip', ['netns', 'del', ns]));
  await run('ip', ['link', 'add', `${veth}0`, 'type', 'veth', 'peer', 'name', `${veth}1`]);
  cleanups.push(() => run('ip', ['link', 'del', `${veth}0`]));
  await run('ip', ['link', 'set', `${veth}1`, 'netns', ns]);
  await run('ip', ['addr', 'add', `${hostSide}/30`, 'dev', `${veth}0`]);
  await run('ip', ['link', 'set', `${veth}0`, 'up']);
  const inNs = (...args: string[]) => run('ip', ['netns', 'exec', ns, ...args]);
  await inNs('ip', 'addr', 'add', `${outsideAddr}/30`, 'dev', `${veth}1`);
  await inNs('ip', 'link', 'set', `${veth}1`, 'up');
  await inNs('ip', 'link', 'set', 'lo', 'up');
  await inNs('ip', 'route', 'add', 'default', 'via', hostSide);
  const server = spawn(
    'ip',
    [
      'netns',
      'exec',
      ns,
      process.execPath,
      '-e',
      `require('net').createServer((s) => { s.on('error', () => {}); s.end('hi'); }).listen(${outsidePort}, '${outsideAddr}')`,
    ],
    { stdio: 'ignore' },
  );
  cleanups.push(async () => server.kill('SIGKILL'));
  for (let i = 0; ; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const sock = net.connect({ host: outsideAddr, port: outsidePort }, () => {
        sock.destroy();
        resolve(true);
      });
      sock.on('error', () => resolve(false));
    });
    if (up) break;
    if (i > 50) throw new Error(`test server in network namespace ${ns} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { outsideAddr, outsidePort };
}
