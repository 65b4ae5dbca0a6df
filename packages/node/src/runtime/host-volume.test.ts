/**
 * The host-backed data volume behind the runtime interface (ensureHostVolume), against the real engine.
 * Prerequisites: scripts/docker-engine.sh, scripts/build-images.sh (federa/base-node:local, federa/helper:local).
 * Everything created carries the unique prefix RUN and is removed in afterAll.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createContainerRuntime } from './runtime-factory.js';

const RUN = `fedhv${randomBytes(3).toString('hex')}`;
const runtime = createContainerRuntime();
const dirs: string[] = [];

async function hostDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `${RUN}-`));
  dirs.push(dir);
  return dir;
}

afterAll(async () => {
  for (const c of await runtime.listContainers({ 'federa.test-run': RUN })) await runtime.remove(c);
  for (const v of await runtime.listVolumes({ prefix: RUN })) await runtime.removeVolume(v.name);
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('ensureHostVolume', () => {
  it('shows a host directory to containers, replacing a volume backed by anything else', async () => {
    const name = `${RUN}-vol`;
    await runtime.ensureVolume(name); // a plain volume of that name, left by someone else
    const dir = await hostDir();
    expect(await runtime.ensureHostVolume(name, dir, { 'federa.test-run': RUN })).toEqual({
      name,
      created: true,
    });
    expect(await runtime.ensureHostVolume(name, dir)).toEqual({ name, created: false });

    const writer = await runtime.runContainer({
      name: `${RUN}-writer`,
      image: 'federa/base-node:local',
      env: {},
      mounts: [{ source: name, target: '/mnt/data', type: 'volume' }],
      labels: { 'federa.test-run': RUN },
      cmd: ['node', '-e', `require('fs').writeFileSync('/mnt/data/seen', 'from the container')`],
    });
    expect((await runtime.waitForExit(writer, { timeoutMs: 15_000 })).exitCode).toBe(0);
    expect(await readFile(join(dir, 'seen'), 'utf8')).toBe('from the container');
  });

  it('says how to remove a volume in use that is backed by another directory', async () => {
    const name = `${RUN}-busy`;
    await runtime.ensureHostVolume(name, await hostDir());
    await runtime.runContainer({
      name: `${RUN}-user`,
      image: 'federa/helper:local',
      env: {},
      mounts: [{ source: name, target: '/mnt/data', type: 'volume' }],
      labels: { 'federa.test-run': RUN },
      cmd: ['sleep', 'infinity'],
    });
    const other = await hostDir();
    await expect(runtime.ensureHostVolume(name, other)).rejects.toThrow(
      `the volume ${name} exists but is not backed by ${other} and cannot be replaced (is a container using it? remove it with 'docker volume rm ${name}')`,
    );
  });
});
