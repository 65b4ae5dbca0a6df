/**
 * Pull only when newer, for every ContainerRuntime on this machine's real engines, against a real registry
 * (Debian's docker-registry with TLS and a login, as a hospital's private registry): an image missing here is
 * pulled, an unchanged one is not, a newer one in the registry is, and with the registry gone the local image
 * runs with a warning. Docker asks the registry for the digest; Podman pulls and compares the image before and
 * after. Prerequisites as in conformance.test.ts, and `apt-get install docker-registry`.
 * Everything created carries the unique prefix RUN and is removed in afterAll.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRegistry } from '@federa/testing';

import type { ContainerRuntime } from './container-runtime.js';
import { createContainerRuntime, type RuntimeKind } from './runtime-factory.js';

const RUN = `fedrc${randomBytes(3).toString('hex')}`;
const TEST_LABEL = 'federa.test-run';
const PODMAN_USER = process.env['FEDERA_PODMAN_USER'] ?? 'federa-podman';
const docker = new Docker();

function podmanUser(): { uid: number; gid: number; home: string } | undefined {
  try {
    const [uid, gid] = ['-u', '-g'].map((f) =>
      Number(execFileSync('id', [f, PODMAN_USER], { encoding: 'utf8' }).trim()),
    );
    const home = execFileSync('getent', ['passwd', PODMAN_USER], { encoding: 'utf8' }).split(':')[5];
    return uid !== undefined && gid !== undefined && home ? { uid, gid, home } : undefined;
  } catch {
    return undefined;
  }
}
const podman = podmanUser();

describe.each<{ kind: RuntimeKind; socketPath?: string; setup: string }>([
  { kind: 'docker', setup: 'scripts/docker-engine.sh and scripts/build-images.sh (as root)' },
  {
    kind: 'podman',
    socketPath: `/run/user/${podman?.uid ?? 'NONE'}/podman/podman.sock`,
    setup: 'scripts/podman-rootless.sh (as root)',
  },
])(
  'pull only when newer on $kind, against a registry with TLS and a login',
  ({ kind, socketPath, setup }) => {
    const auth = { username: 'federa', password: `pw-${RUN}` };
    const reg = new LocalRegistry(`${RUN}-${kind}`, { auth, labels: { [TEST_LABEL]: RUN } });
    let runtime: ContainerRuntime;
    let trustDir: string | undefined;

    beforeAll(async () => {
      await reg.setUp();
      runtime = createContainerRuntime({
        kind,
        ...(socketPath !== undefined ? { socketPath } : {}),
        registries: [{ registry: reg.host, ...auth }],
        registryTimeoutMs: 10_000,
      });
      try {
        await runtime.ping();
      } catch (err) {
        throw new Error(`${kind} is not usable (${(err as Error).message}). Run ${setup} first.`);
      }
      if (kind === 'podman') {
        // Podman trusts a registry's certificate authority from the user's certs.d (Docker: any on 127.0.0.0/8).
        if (!podman) throw new Error(`no user ${PODMAN_USER}: run ${setup} first`);
        trustDir = join(podman.home, '.config', 'containers', 'certs.d', reg.host);
        await mkdir(trustDir, { recursive: true });
        await copyFile(join(reg.root, 'cert.pem'), join(trustDir, 'ca.crt'));
        await chown(trustDir, podman.uid, podman.gid);
        await chown(join(trustDir, 'ca.crt'), podman.uid, podman.gid);
      }
    });

    afterAll(async () => {
      const ref = `${reg.repo}:1.0`;
      if (socketPath !== undefined)
        await new Docker({ socketPath })
          .getImage(ref)
          .remove({ force: true })
          .catch(() => undefined);
      await reg.tearDown();
      if (trustDir !== undefined) await rm(trustDir, { recursive: true, force: true });
    });

    it('pulls a missing image, leaves an unchanged one, pulls a newer one, falls back to the local one', async () => {
      const ref = `${reg.repo}:1.0`;
      const v1 = await reg.makeImage(ref, '1');
      await reg.push(ref);
      // The engine under test starts without the image (Docker made it: it is dropped there).
      if (kind === 'docker') await docker.getImage(ref).remove({ force: true });
      expect(await runtime.imageExists(ref)).toBe(false);

      expect(await runtime.pullIfNewer(ref)).toMatchObject({ action: 'pulled', imageId: v1 });
      expect(await runtime.pullIfNewer(ref)).toMatchObject({ action: 'up-to-date', imageId: v1 });

      // A newer build is pushed under the same tag.
      const v2 = await reg.makeImage(ref, '2');
      expect(v2).not.toBe(v1);
      await reg.push(ref);
      if (kind === 'docker') await docker.getImage(v1).tag({ repo: reg.repo, tag: '1.0' });
      expect((await runtime.inspectImage(ref))?.id).toBe(v1);
      expect(await runtime.pullIfNewer(ref)).toMatchObject({ action: 'pulled', imageId: v2 });
      expect((await runtime.inspectImage(ref))?.labels['federa.test.version']).toBe('2');
      expect(await runtime.pullIfNewer(ref)).toMatchObject({ action: 'up-to-date', imageId: v2 });

      const absent = await runtime.pullIfNewer(`${reg.repo}-absent:1`);
      expect(absent.action).toBe('missing');
      expect(absent.warning).toMatch(/neither available locally nor from its registry/);

      // The registry goes away: the local image is used, and the warning says why.
      await reg.stop();
      const fallback = await runtime.pullIfNewer(ref);
      expect(fallback).toMatchObject({ action: 'local-fallback', imageId: v2 });
      expect(fallback.warning).toMatch(/could not ask the registry|pulling .* failed/);
    });
  },
);
