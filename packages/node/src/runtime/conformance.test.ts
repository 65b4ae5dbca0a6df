/**
 * One suite for the ContainerRuntime interface, run against every implementation on this machine's real engines:
 * Docker (root daemon) and rootless Podman (an unprivileged user's API socket). Networks, volumes, isolation,
 * kill, logs, exit codes, cleanup.
 * Prerequisites (a missing one fails the suite with what to run; nothing is skipped):
 *   scripts/docker-engine.sh, scripts/build-images.sh     Docker and federa/base-node:local, federa/helper:local
 *   scripts/podman-rootless.sh                            the user federa-podman, its API socket, the images
 * Runs as root: the "outside" server lives in a network namespace of its own behind a veth pair.
 * Everything created carries the unique prefix RUN and is removed in afterAll.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContainerHandle, ContainerRuntime, ContainerSpec } from './container-runtime.js';
import { RuntimeUnavailableError } from './errors.js';
import { createContainerRuntime, type RuntimeKind } from './runtime-factory.js';

const run = promisify(execFile);
const RUN = `fedcf${randomBytes(3).toString('hex')}`;
const NODE_IMAGE = 'federa/base-node:local';
const HELPER_IMAGE = 'federa/helper:local';
const TEST_LABEL = 'federa.test-run';
const PODMAN_USER = process.env['FEDERA_PODMAN_USER'] ?? 'federa-podman';

interface Engine {
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
const ENGINES: Engine[] = [
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

// Node one-liners run inside the containers.
const TCP_PROBE = `const [h, p] = process.argv.slice(1);
const s = require('net').connect({ host: h, port: Number(p), timeout: 3000 });
s.on('connect', () => { console.log('connected'); process.exit(0); });
s.on('timeout', () => { console.log('timeout'); process.exit(2); });
s.on('error', (e) => { console.log('error ' + e.code); process.exit(1); });`;
const HTTP_GET_RETRY = `(async () => { for (let i = 0; i < 50; i++) {
  try { const r = await fetch(process.argv[1]); console.log('body:' + (await r.text())); process.exit(0); }
  catch { await new Promise((r) => setTimeout(r, 100)); } }
  console.log('unreachable'); process.exit(1); })();`;

async function tcpServer(host: string): Promise<{ port: number; close: () => Promise<void> }> {
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
function hostAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.family === 'IPv4' && !a.internal && !a.address.startsWith('10.254.')) return a.address;
    }
  }
  throw new Error('this host has no non-loopback IPv4 address');
}

// "Outside": a TCP server in a network namespace of our own behind a veth pair (10.254.N.2, host side .1), so that
// reaching it needs forwarding by the host, as the internet would. Never a public address.
const ns = `${RUN}-ns`;
const veth = `${RUN.slice(0, 10)}v`; // interface names have at most 15 characters
const octet = Math.floor(Math.random() * 200) + 20;
const outsideAddr = `10.254.${octet}.2`;
const outsidePort = 7777;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
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
});

afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
});

describe.each(ENGINES)('ContainerRuntime on $kind', ({ kind, runtime, owner, setup }) => {
  const prefix = `${RUN}-${kind}`;
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

  beforeAll(async () => {
    try {
      await runtime.ping();
    } catch (err) {
      throw new Error(`${kind} is not usable (${(err as Error).message}). Run ${setup} first.`);
    }
    for (const image of [NODE_IMAGE, HELPER_IMAGE]) {
      if (!(await runtime.imageExists(image)))
        throw new Error(`${kind}: image ${image} missing. Run ${setup}.`);
    }
  });

  afterAll(async () => {
    for (const c of await runtime.listContainers({ [TEST_LABEL]: prefix })) await runtime.remove(c);
    for (const n of [`${prefix}-net`, `${prefix}-open-net`]) await runtime.removeNetwork(n);
    for (const v of await runtime.listVolumes({ prefix })) await runtime.removeVolume(v.name);
  });

  it('runs a container with env and a volume, reports exit codes and demultiplexed logs, cleans up', async () => {
    const vol = `${prefix}-vol`;
    expect(await runtime.ensureVolume(vol, { [TEST_LABEL]: prefix })).toEqual({ name: vol, created: true });
    expect(await runtime.ensureVolume(vol)).toEqual({ name: vol, created: false });
    const writer = await runToEnd(
      spec(
        'writer',
        [
          'node',
          '-e',
          `require('fs').writeFileSync('/mnt/data/greeting', process.env.GREETING);
           console.log('out:' + process.env.GREETING); console.error('err:line'); console.log('out:last');`,
        ],
        { env: { GREETING: 'hello federa' }, mounts: [{ source: vol, target: '/mnt/data', type: 'volume' }] },
      ),
    );
    expect(writer.exitCode).toBe(0);
    // Both streams, demultiplexed; only the order within one stream is guaranteed.
    expect(writer.logs.split('\n').sort()).toEqual(['', 'err:line', 'out:hello federa', 'out:last']);
    expect(writer.logs.replace('err:line\n', '')).toBe('out:hello federa\nout:last\n');

    const reader = await runToEnd(
      spec(
        'reader',
        ['node', '-e', `console.log(require('fs').readFileSync('/mnt/data/greeting', 'utf8'))`],
        {
          mounts: [{ source: vol, target: '/mnt/data', type: 'volume', readOnly: true }],
        },
      ),
    );
    expect(reader).toMatchObject({ exitCode: 0, logs: 'hello federa\n' });
    const readOnly = await runToEnd(
      spec('ro', ['node', '-e', `require('fs').writeFileSync('/mnt/data/x', 'y')`], {
        mounts: [{ source: vol, target: '/mnt/data', type: 'volume', readOnly: true }],
      }),
    );
    expect(readOnly.exitCode).not.toBe(0);
    expect(readOnly.logs).toMatch(/EROFS|read-only/);

    const failing = await runToEnd(spec('failing', ['node', '-e', `console.error('boom'); process.exit(3)`]));
    expect(failing).toMatchObject({ exitCode: 3, logs: 'boom\n' });
    expect(await runtime.inspectContainer(failing.handle.name)).toMatchObject({
      status: 'exited',
      running: false,
      exitCode: 3,
    });

    const listed = await runtime.listContainers({ [TEST_LABEL]: prefix });
    expect(listed.map((c) => c.name).sort()).toEqual(
      ['failing', 'reader', 'ro', 'writer'].map((n) => `${prefix}-${n}`),
    );
    expect(listed.every((c) => c.status === 'exited')).toBe(true);

    for (const c of [writer, reader, readOnly, failing]) await runtime.remove(c.handle);
    expect(await runtime.inspectContainer(`${prefix}-writer`)).toBeUndefined();
    expect(await runtime.removeContainerIfExists(`${prefix}-writer`)).toBe(false);
    expect(await runtime.listContainers({ [TEST_LABEL]: prefix })).toEqual([]);

    expect((await runtime.listVolumes({ prefix, suffix: '-vol' })).map((v) => v.name)).toEqual([vol]);
    await runtime.removeVolume(vol);
    await runtime.removeVolume(vol); // idempotent
    expect(await runtime.listVolumes({ prefix })).toEqual([]);
  });

  it("shares a host folder through a bind mount and through the node's host-backed volume", async () => {
    const dir = await hostDir();
    await writeFile(join(dir, 'input'), 'in-bytes');
    const copy = await runToEnd(
      spec(
        'bind',
        [
          'node',
          '-e',
          `const fs = require('fs'); fs.writeFileSync('/mnt/task/output', fs.readFileSync('/mnt/task/input', 'utf8') + '!')`,
        ],
        { mounts: [{ source: dir, target: '/mnt/task', type: 'bind' }] },
      ),
    );
    expect(copy.exitCode, copy.logs).toBe(0);
    expect(await readFile(join(dir, 'output'), 'utf8')).toBe('in-bytes!');

    const name = `${prefix}-data`;
    await runtime.ensureVolume(name); // a plain volume of that name, left by someone else: replaced
    expect(await runtime.ensureHostVolume(name, dir, { [TEST_LABEL]: prefix })).toEqual({
      name,
      created: true,
    });
    expect(await runtime.ensureHostVolume(name, dir)).toEqual({ name, created: false });
    const viaVolume = await runToEnd(
      spec('hostvol', ['node', '-e', `require('fs').appendFileSync('/mnt/data/output', '?')`], {
        mounts: [{ source: name, target: '/mnt/data', type: 'volume' }],
      }),
    );
    expect(viaVolume.exitCode, viaVolume.logs).toBe(0);
    expect(await readFile(join(dir, 'output'), 'utf8')).toBe('in-bytes!?');
    await runtime.remove(viaVolume.handle);
    await runtime.removeVolume(name);
    expect(await readFile(join(dir, 'input'), 'utf8')).toBe('in-bytes'); // the folder outlives its volume
  });

  it('kills a running container (exit 137), refuses a second of the same name and a missing image', async () => {
    const sleeper = await runtime.runContainer(
      spec('sleeper', ['sleep', 'infinity'], { image: HELPER_IMAGE }),
    );
    expect(await runtime.inspectContainer(sleeper.name)).toMatchObject({
      running: true,
      exitCode: undefined,
    });
    await expect(runtime.waitForExit(sleeper, { timeoutMs: 300 })).rejects.toThrow(/still running/);
    await expect(runtime.runContainer(spec('sleeper', ['true'], { image: HELPER_IMAGE }))).rejects.toThrow(
      /exists already/,
    );
    const out = await runtime.exec(sleeper.name, ['sh', '-c', 'echo in-$((6*7)); exit 5']);
    expect(out).toEqual({ exitCode: 5, output: 'in-42\n' });
    await runtime.kill(sleeper);
    expect((await runtime.waitForExit(sleeper, { timeoutMs: 20_000 })).exitCode).toBe(137);
    await runtime.kill(sleeper); // not running: no error
    expect(await runtime.removeContainerIfExists(sleeper.name)).toBe(true);
    await runtime.remove(sleeper); // gone: no error
    expect(await runtime.inspectContainer(sleeper.name)).toBeUndefined();

    await expect(
      runtime.runContainer(spec('noimage', ['true'], { image: `${RUN}/does-not-exist:1` })),
    ).rejects.toThrow(/not available locally/);
    expect(await runtime.inspectContainer(`${prefix}-noimage`)).toBeUndefined();
  });

  it('follows the logs of a running container as they are written', async () => {
    const handle = await runtime.runContainer(
      spec('follow', [
        'node',
        '-e',
        `let i = 0; const t = setInterval(() => { console.log('tick ' + ++i); if (i === 3) { clearInterval(t); } }, 150)`,
      ]),
    );
    let seen = '';
    await runtime.followLogs(handle, (t) => (seen += t), AbortSignal.timeout(20_000));
    expect(seen).toBe('tick 1\ntick 2\ntick 3\n');
    expect((await runtime.waitForExit(handle)).exitCode).toBe(0);
  });

  it('an internal network has no way out, but reaches the other containers on it by alias', async () => {
    const internal = `${prefix}-net`;
    const open = `${prefix}-open-net`;
    expect(
      await runtime.ensureNetwork(internal, { internal: true, labels: { [TEST_LABEL]: prefix } }),
    ).toEqual({
      name: internal,
      created: true,
    });
    expect((await runtime.ensureNetwork(internal, { internal: true })).created).toBe(false);
    await runtime.ensureNetwork(open, { internal: false });
    const info = await runtime.inspectNetwork(internal);
    expect(info).toMatchObject({ name: internal, internal: true });
    const gateway = info?.gateway ?? '';
    expect(gateway).toMatch(/^\d+\.\d+\.\d+\.\d+$/);

    // Servers of ours on the host: one on 127.0.0.1 only, reached at the gateway (stays private), the "outside" one
    // behind the host's routing (unreachable from the internal network, reachable from a normal one).
    const loopbackOnly = await tcpServer('127.0.0.1');
    cleanups.push(loopbackOnly.close);
    const probe = (name: string, network: string, host: string, port: number) =>
      runToEnd(spec(name, ['node', '-e', TCP_PROBE, host, String(port)], { network }));
    const [blocked, control, loopback] = await Promise.all([
      probe('probe-internal', internal, outsideAddr, outsidePort),
      probe('probe-open', open, outsideAddr, outsidePort),
      probe('probe-loopback', internal, gateway, loopbackOnly.port),
    ]);
    expect(blocked.exitCode, blocked.logs).not.toBe(0);
    expect(blocked.logs).not.toMatch(/connected/);
    expect(control).toMatchObject({ exitCode: 0, logs: 'connected\n' }); // the target itself is reachable
    expect(loopback.logs).not.toMatch(/connected/);

    // The proxy as a container on the network with alias `proxyserver` (the node in a container).
    const proxy = await runtime.runContainer(
      spec(
        'proxy',
        ['node', '-e', `require('http').createServer((q, r) => r.end('proxy-ok ' + q.url)).listen(8080)`],
        {
          network: internal,
          networkAliases: ['proxyserver'],
        },
      ),
    );
    const direct = await runToEnd(
      spec('client', ['node', '-e', HTTP_GET_RETRY, 'http://proxyserver:8080/task'], { network: internal }),
    );
    expect(direct).toMatchObject({ exitCode: 0, logs: 'body:proxy-ok /task\n' });

    // The algorithm pattern: a helper holds the network namespace, the algorithm joins it.
    const helper = await runtime.runContainer(
      spec('helper', ['sleep', 'infinity'], { image: HELPER_IMAGE, network: internal }),
    );
    const algo = await runToEnd(
      spec('algo', ['node', '-e', HTTP_GET_RETRY, 'http://proxyserver:8080/result/1'], {
        network: `container:${helper.id}`,
      }),
    );
    expect(algo).toMatchObject({ exitCode: 0, logs: 'body:proxy-ok /result/1\n' });

    // A service container attached afterwards under an alias (node config `container_services`).
    const service = await runtime.runContainer(
      spec('service', ['node', '-e', `require('http').createServer((q, r) => r.end('db')).listen(5432)`], {
        network: open,
      }),
    );
    await runtime.connectContainerToNetwork(service.name, internal, ['database']);
    await runtime.connectContainerToNetwork(service.name, internal, ['database']); // again: no error
    const viaAlias = await runToEnd(
      spec('client2', ['node', '-e', HTTP_GET_RETRY, 'http://database:5432/'], { network: internal }),
    );
    expect(viaAlias).toMatchObject({ exitCode: 0, logs: 'body:db\n' });
    await runtime.disconnectContainerFromNetwork(service.name, internal);
    await runtime.disconnectContainerFromNetwork(service.name, internal); // again: no error
    expect((await runtime.inspectNetwork(internal))?.containers).not.toContain(service.name);

    for (const h of [proxy, helper, service]) await runtime.remove(h);
    // removeNetwork disconnects what is still attached.
    const leftover = await runtime.runContainer(
      spec('leftover', ['sleep', 'infinity'], { image: HELPER_IMAGE, network: internal }),
    );
    await runtime.removeNetwork(internal);
    await runtime.removeNetwork(internal); // idempotent
    expect(await runtime.inspectNetwork(internal)).toBeUndefined();
    await runtime.remove(leftover);
  });

  it('reports an engine that does not answer with a typed, readable error', async () => {
    const broken = createContainerRuntime({ kind, socketPath: join(tmpdir(), `${prefix}-no-such.sock`) });
    await expect(broken.ping()).rejects.toBeInstanceOf(RuntimeUnavailableError);
    await expect(broken.ping()).rejects.toThrow(/does not answer/);
  });
});

/** Where the engines differ: what a container on an internal network reaches of the host itself. */
describe('host services seen from an internal network', () => {
  it.each(ENGINES)(
    '$kind: a server on the host address answers only where the engine lets it',
    async ({ kind, runtime }) => {
      const network = `${RUN}-${kind}-hostnet`;
      await runtime.ensureNetwork(network, { internal: true });
      const server = await tcpServer('0.0.0.0');
      try {
        const handle = await runtime.runContainer({
          name: `${RUN}-${kind}-hostprobe`,
          image: NODE_IMAGE,
          env: {},
          mounts: [],
          labels: { [TEST_LABEL]: RUN },
          network,
          cmd: ['node', '-e', TCP_PROBE, hostAddress(), String(server.port)],
        });
        await runtime.waitForExit(handle, { timeoutMs: 20_000 });
        const logs = await runtime.logs(handle);
        await runtime.remove(handle);
        // Docker's internal bridge lives in the host's own namespace: the host's services are reachable (the node's
        // host guard closes that); rootless Podman's lives in the user's namespace: no route to the host at all.
        if (kind === 'docker') expect(logs).toBe('connected\n');
        else expect(logs).not.toMatch(/connected/);
      } finally {
        await server.close();
        await runtime.removeNetwork(network);
      }
    },
  );
});
