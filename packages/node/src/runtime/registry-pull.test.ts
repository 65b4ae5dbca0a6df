/**
 * Pull-if-newer and registry logins of the Docker runtime, against the real engine and real registries.
 * Prerequisites (the tests fail with a readable message without them, they never skip):
 *   scripts/docker-engine.sh    Docker engine running
 *   scripts/build-images.sh     federa/helper:local (the base of the images pushed)
 *   apt-get install docker-registry   (Debian's registry)
 * Everything created carries the unique prefix RUN and is removed in afterAll.
 */
import { randomBytes } from 'node:crypto';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerRuntime } from './docker/docker-runtime.js';
import { RegistryError } from './errors.js';
import { createContainerRuntime } from './runtime-factory.js';
import { LocalRegistry, requireDocker } from '@federa/testing';

const RUN = `fedrp${randomBytes(3).toString('hex')}`;
const TEST_LABEL = 'federa.test-run';

const docker = new Docker();
const runtime = new DockerRuntime({ docker, registryTimeoutMs: 5_000 });

beforeAll(() => requireDocker());

afterAll(async () => {
  for (const c of await runtime.listContainers({ [TEST_LABEL]: RUN })) await runtime.remove(c);
});

describe('DockerRuntime pull-if-newer against a local registry', () => {
  const reg = new LocalRegistry(`${RUN}-algorithm`, { labels: { [TEST_LABEL]: RUN } });
  beforeAll(() => reg.setUp());
  afterAll(() => reg.tearDown());

  it('up-to-date when digests match, pulled when the registry has a newer image, local fallback without registry', async () => {
    const { repo } = reg;
    const ref = `${repo}:latest`;
    const v1 = await reg.makeImage(ref, '1');
    await reg.push(ref);
    expect(await runtime.pullIfNewer(ref)).toMatchObject({ action: 'up-to-date', imageId: v1 });

    // A newer image arrives in the registry; the local tag still points at v1.
    const v2 = await reg.makeImage(ref, '2');
    await reg.push(ref);
    await docker.getImage(v1).tag({ repo, tag: 'latest' });
    expect((await runtime.inspectImage(ref))?.id).toBe(v1);
    const pulled = await runtime.pullIfNewer(ref);
    expect(pulled).toMatchObject({ action: 'pulled', imageId: v2 });
    expect(pulled.remoteDigest).toMatch(/^sha256:/);
    expect((await runtime.inspectImage(ref))?.labels['federa.test.version']).toBe('2');
    expect((await runtime.pullIfNewer(ref)).action).toBe('up-to-date');

    // Not present locally: pulled.
    await docker.getImage(ref).remove({ force: true });
    expect(await runtime.imageExists(ref)).toBe(false);
    expect(await runtime.pullIfNewer(ref)).toMatchObject({ action: 'pulled', imageId: v2 });

    // Neither here nor there.
    const missing = await runtime.pullIfNewer(`${repo}-absent:1`);
    expect(missing.action).toBe('missing');
    expect(missing.warning).toMatch(/neither available locally nor from its registry/);

    // Registry gone: keep the local image, with a warning.
    await reg.stop();
    const fallback = await runtime.pullIfNewer(ref);
    expect(fallback).toMatchObject({ action: 'local-fallback', imageId: v2 });
    expect(fallback.warning).toMatch(/connection refused|could not ask the registry/);
    expect((await runtime.pullIfNewer(`${repo}-absent:1`)).action).toBe('missing');

    // Logging in to a registry that cannot be reached is a RegistryError.
    await expect(
      runtime.login({ registry: `http://127.0.0.1:${reg.port}/`, username: 'u', password: 'p' }),
    ).rejects.toBeInstanceOf(RegistryError);
  });
});

describe('DockerRuntime with a registry that needs credentials (TLS + htpasswd)', () => {
  const auth = { username: 'federa', password: `pw-${RUN}` };
  const reg = new LocalRegistry(`${RUN}-private`, { auth, labels: { [TEST_LABEL]: RUN } });
  beforeAll(() => reg.setUp());
  afterAll(() => reg.tearDown());

  it('logs in per registry host and pulls with the stored credentials', async () => {
    const ref = `${reg.repo}:1.0`;
    const v1 = await reg.makeImage(ref, '1');
    await reg.push(ref);
    await docker.getImage(ref).remove({ force: true });
    const registry = `127.0.0.1:${reg.port}`;

    // Without credentials the registry refuses: nothing local, nothing pullable.
    const anonymous = new DockerRuntime({ docker, registryTimeoutMs: 5_000 });
    const refused = await anonymous.pullIfNewer(ref);
    expect(refused.action).toBe('missing');
    // Docker 20.10 retries a refused insecure (127.0.0.0/8) registry over plain HTTP, so the message it reports is
    // that of the HTTP attempt ("Client sent an HTTP request to an HTTPS server"), not "unauthorized".
    expect(refused.warning).toMatch(/neither available locally nor from its registry/);

    await expect(
      anonymous.login({ registry, username: auth.username, password: 'wrong' }),
    ).rejects.toBeInstanceOf(RegistryError);
    await anonymous.login({
      registry: `https://${registry}/`,
      username: auth.username,
      password: auth.password,
    });
    expect(await anonymous.pullIfNewer(ref)).toMatchObject({ action: 'pulled', imageId: v1 });
    expect(await anonymous.pullIfNewer(ref)).toMatchObject({ action: 'up-to-date', imageId: v1 });

    // Credentials given at construction (node config `docker_registries`) or per call work the same way.
    const configured = createContainerRuntime({ registries: [{ registry, ...auth }] });
    expect((await configured.pullIfNewer(ref)).action).toBe('up-to-date');
    await docker.getImage(ref).remove({ force: true });
    expect((await runtime.pullIfNewer(ref, { registry, ...auth })).action).toBe('pulled');
  });
});
