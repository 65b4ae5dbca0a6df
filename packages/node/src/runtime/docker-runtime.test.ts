/**
 * Tests of the Docker runtime against the real engine of this machine (pulls and registries: registry-pull.test.ts).
 * Prerequisites (the tests fail with a readable message without them, they never skip):
 *   scripts/docker-engine.sh    Docker engine running
 *   scripts/build-images.sh     federa/base-node:local, federa/helper:local
 * Everything created carries the unique prefix RUN and is removed in afterAll.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HELPER_IMAGE,
  HTTP_GET_RETRY,
  TCP_PROBE,
  TEST_LABEL,
  cleanUp,
  dockerEngine,
  engineKit,
  removeEngineObjects,
  requireEngine,
  runPrefix,
  startOutside,
  tcpServer,
  type Cleanups,
} from '@federa/testing';
import { DockerRuntime } from './docker/docker-runtime.js';
import { RuntimeUnavailableError } from './errors.js';
import { createContainerRuntime } from './runtime-factory.js';

const RUN = runPrefix('fedrt');
const runtime = new DockerRuntime({ docker: new Docker(), registryTimeoutMs: 5_000 });
const engine = dockerEngine(runtime);
const cleanups: Cleanups = [];
const { spec, runToEnd } = engineKit(engine, RUN, cleanups);

beforeAll(() => requireEngine(engine));
afterAll(async () => {
  await cleanUp(cleanups);
  await removeEngineObjects(runtime, RUN);
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
  let outsideAddr = '';
  let outsidePort = 0;
  beforeAll(async () => {
    ({ outsideAddr, outsidePort } = await startOutside(RUN, cleanups));
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
