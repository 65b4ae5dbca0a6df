/**
 * One suite for the ContainerRuntime interface, run against every implementation on this machine's real engines:
 * Docker (root daemon) and rootless Podman (an unprivileged user's API socket). This file: containers (volumes, mounts, kill,
 * logs, exit codes, cleanup); conformance-network.test.ts: networks and isolation.
 * Prerequisites (a missing one fails the suite with what to run; nothing is skipped):
 *   scripts/docker-engine.sh, scripts/build-images.sh     Docker and federa/base-node:local, federa/helper:local
 *   scripts/podman-rootless.sh                            the user federa-podman, its API socket, the images
 * Everything created carries a unique prefix and is removed in afterAll. Shared parts:
 * @federa/testing (container-engines.ts).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeUnavailableError } from './errors.js';
import { createContainerRuntime } from './runtime-factory.js';
import {
  HELPER_IMAGE,
  TEST_LABEL,
  cleanUp,
  containerEngines,
  engineKit,
  removeEngineObjects,
  requireEngine,
  runPrefix,
  type Cleanups,
} from '@federa/testing';

const RUN = runPrefix();
const cleanups: Cleanups = [];

afterAll(() => cleanUp(cleanups));

describe.each(containerEngines())('ContainerRuntime on $kind: containers', (engine) => {
  const { kind, runtime } = engine;
  const prefix = `${RUN}-${kind}`;
  const { spec, runToEnd, hostDir } = engineKit(engine, prefix, cleanups);

  beforeAll(() => requireEngine(engine));
  afterAll(() => removeEngineObjects(runtime, prefix));

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

  it('reports an engine that does not answer with a typed, readable error', async () => {
    const broken = createContainerRuntime({ kind, socketPath: join(tmpdir(), `${prefix}-no-such.sock`) });
    await expect(broken.ping()).rejects.toBeInstanceOf(RuntimeUnavailableError);
    await expect(broken.ping()).rejects.toThrow(/does not answer/);
  });
});
