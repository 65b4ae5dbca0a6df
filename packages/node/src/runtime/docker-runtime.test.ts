/**
 * Tests of the Docker runtime against the real engine of this machine (pulls and registries: registry-pull.test.ts).
 * Prerequisites (the tests fail with a readable message without them, they never skip):
 *   scripts/docker-engine.sh    Docker engine running
 *   scripts/build-images.sh     federa/base-node:local, federa/helper:local
 * Everything created carries the unique prefix RUN and is removed in afterAll.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContainerHandle, ContainerSpec } from './container-runtime.js';
import { DockerRuntime } from './docker/docker-runtime.js';
import { RuntimeUnavailableError } from './errors.js';
import { createContainerRuntime } from './runtime-factory.js';

const run = promisify(execFile);
const RUN = `fedrt${randomBytes(3).toString('hex')}`;
const NODE_IMAGE = 'federa/base-node:local';
const HELPER_IMAGE = 'federa/helper:local';
const TEST_LABEL = 'federa.test-run';

const docker = new Docker();
const runtime = new DockerRuntime({ docker, registryTimeoutMs: 5_000 });
const cleanups: Array<() => Promise<unknown>> = [];

function spec(name: string, cmd: string[], extra: Partial<ContainerSpec> = {}): ContainerSpec {
  return {
    name: `${RUN}-${name}`,
    image: NODE_IMAGE,
    env: {},
    mounts: [],
    labels: { [TEST_LABEL]: RUN },
    cmd,
    ...extra,
  };
}

/** Run to completion; returns exit code and logs. */
async function runToEnd(
  s: ContainerSpec,
): Promise<{ exitCode: number; logs: string; handle: ContainerHandle }> {
  const handle = await runtime.runContainer(s);
  const { exitCode } = await runtime.waitForExit(handle, { timeoutMs: 15_000 });
  const logs = await runtime.logs(handle);
  return { exitCode, logs, handle };
}

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

beforeAll(async () => {
  try {
    await runtime.ping();
  } catch (err) {
    throw new Error(
      `Docker engine not reachable (${(err as Error).message}). Run scripts/docker-engine.sh first (as root).`,
    );
  }
  for (const image of [NODE_IMAGE, HELPER_IMAGE]) {
    if (!(await runtime.imageExists(image))) {
      throw new Error(`image ${image} missing. Run scripts/build-images.sh first.`);
    }
  }
});

afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
  for (const c of await runtime.listContainers({ [TEST_LABEL]: RUN })) await runtime.remove(c);
  for (const n of await docker.listNetworks({ filters: JSON.stringify({ name: [RUN] }) })) {
    await runtime.removeNetwork(n.Name);
  }
  for (const v of await runtime.listVolumes({ prefix: RUN })) await runtime.removeVolume(v.name);
});

describe('DockerRuntime containers and volumes', () => {
  it('runs a container with env and a volume, reports exit codes and demultiplexed logs', async () => {
    const vol = `${RUN}-vol`;
    expect(await runtime.ensureVolume(vol, { [TEST_LABEL]: RUN })).toEqual({ name: vol, created: true });
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
    // Both streams, demultiplexed (no frame headers). The engine collects stdout and stderr separately, so
    // only the order within one stream is guaranteed.
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

    const failing = await runToEnd(spec('failing', ['node', '-e', `console.error('boom'); process.exit(3)`]));
    expect(failing.exitCode).toBe(3);
    expect(failing.logs).toBe('boom\n');
    expect(await runtime.inspectContainer(failing.handle.name)).toMatchObject({
      status: 'exited',
      running: false,
      exitCode: 3,
    });

    const listed = await runtime.listContainers({ [TEST_LABEL]: RUN });
    expect(listed.map((c) => c.name).sort()).toEqual([`${RUN}-failing`, `${RUN}-reader`, `${RUN}-writer`]);
    expect(listed.every((c) => c.status === 'exited')).toBe(true);

    for (const c of [writer, reader, failing]) await runtime.remove(c.handle);
    expect(await runtime.inspectContainer(`${RUN}-writer`)).toBeUndefined();
    expect(await runtime.removeContainerIfExists(`${RUN}-writer`)).toBe(false);

    expect((await runtime.listVolumes({ prefix: RUN, suffix: '-vol' })).map((v) => v.name)).toEqual([vol]);
    await runtime.removeVolume(vol);
    await runtime.removeVolume(vol); // idempotent
    expect(await runtime.listVolumes({ prefix: RUN })).toEqual([]);
  });

  it('bind-mounts a host folder, kills and removes a running container, replaces a stale one', async () => {
    const dir = await mkdtemp(join(tmpdir(), `${RUN}-bind-`));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'input'), 'in-bytes');
    const copy = await runToEnd(
      spec(
        'bind',
        [
          'node',
          '-e',
          `const fs = require('fs'); fs.writeFileSync('/mnt/task/output', fs.readFileSync('/mnt/task/input', 'utf8') + '!')`,
        ],
        {
          mounts: [{ source: dir, target: '/mnt/task', type: 'bind' }],
        },
      ),
    );
    expect(copy.exitCode).toBe(0);
    expect(await readFile(join(dir, 'output'), 'utf8')).toBe('in-bytes!');

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
    await runtime.kill(sleeper);
    expect((await runtime.waitForExit(sleeper)).exitCode).toBe(137);
    await runtime.kill(sleeper); // not running: no error
    expect(await runtime.removeContainerIfExists(sleeper.name)).toBe(true);
    await runtime.remove(sleeper); // gone: no error

    await expect(
      runtime.runContainer(spec('noimage', ['true'], { image: `${RUN}/does-not-exist:1` })),
    ).rejects.toThrow(/not available locally/);
    expect(await runtime.inspectContainer(`${RUN}-noimage`)).toBeUndefined();
  });

  it('reports an unreachable engine with a typed, readable error', async () => {
    const broken = createContainerRuntime({ socketPath: join(tmpdir(), `${RUN}-no-such.sock`) });
    await expect(broken.ping()).rejects.toBeInstanceOf(RuntimeUnavailableError);
    await expect(broken.ping()).rejects.toThrow(/does not answer/);
  });
});

describe('DockerRuntime networks', () => {
  // "Outside": a TCP server in a network namespace of our own behind a veth pair (10.254.N.2, host side .1), so
  // that reaching it needs forwarding by the host, as the internet would. Never a public address.
  const ns = `${RUN}-ns`;
  const veth = `${RUN.slice(0, 10)}v`; // interface names have at most 15 characters
  const octet = Math.floor(Math.random() * 200) + 20;
  const hostSide = `10.254.${octet}.1`;
  const outsideAddr = `10.254.${octet}.2`;
  const outsidePort = 7777;

  beforeAll(async () => {
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
    cleanups.push(async () => {
      server.kill('SIGKILL');
    });
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

  it('an internal network has no way out, but reaches its gateway and other containers by alias', async () => {
    const internal = `${RUN}-net`;
    const open = `${RUN}-open-net`;
    expect(await runtime.ensureNetwork(internal, { internal: true, labels: { [TEST_LABEL]: RUN } })).toEqual({
      name: internal,
      created: true,
    });
    expect((await runtime.ensureNetwork(internal, { internal: true })).created).toBe(false);
    await runtime.ensureNetwork(open, { internal: false });
    const info = await runtime.inspectNetwork(internal);
    expect(info).toMatchObject({ name: internal, internal: true });
    const gateway = info?.gateway ?? '';
    expect(gateway).toMatch(/^\d+\.\d+\.\d+\.\d+$/);

    // Host servers: one on the internal network's gateway address (how a proxy of a node running on the host,
    // vnode-local, is reached), one on 127.0.0.1 only.
    const atGateway = await tcpServer(gateway);
    cleanups.push(atGateway.close);
    const loopbackOnly = await tcpServer('127.0.0.1');
    cleanups.push(loopbackOnly.close);

    const probe = (name: string, network: string, host: string, port: number) =>
      runToEnd(spec(name, ['node', '-e', TCP_PROBE, host, String(port)], { network }));
    const [blocked, control, viaGateway, loopback] = await Promise.all([
      probe('probe-internal', internal, outsideAddr, outsidePort),
      probe('probe-open', open, outsideAddr, outsidePort),
      probe('probe-gateway', internal, gateway, atGateway.port),
      probe('probe-loopback', internal, gateway, loopbackOnly.port),
    ]);
    expect(blocked.exitCode, blocked.logs).not.toBe(0); // dropped by the engine's isolation rules: timeout
    expect(control).toMatchObject({ exitCode: 0, logs: 'connected\n' }); // the target itself is reachable
    expect(viaGateway).toMatchObject({ exitCode: 0, logs: 'connected\n' });
    expect(loopback).toMatchObject({ exitCode: 1, logs: 'error ECONNREFUSED\n' }); // 127.0.0.1-only stays private

    // The proxy as a container on the network with alias `proxyserver` (dockerized node).
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

    // A service container attached afterwards under an alias (node config `docker_services`).
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
});
