/**
 * When the node refuses a Podman, and what it says: against real sockets (Docker's, a rootful Podman service started
 * here as root, an old engine's answers served on a socket of our own), and the host features rootless Podman needs,
 * read from a folder laid out like a host.
 * Prerequisites: scripts/docker-engine.sh, scripts/podman-rootless.sh (installs Podman). Runs as root.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';

import { RuntimeUnavailableError } from '../errors.js';
import { missingRootlessFeatures } from './host-check.js';
import { PodmanRuntime, versionAtLeast } from './podman-runtime.js';

const RUN = `podman-rt-${randomBytes(3).toString('hex')}`;
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `${RUN}-`));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function waitForSocket(runtime: PodmanRuntime, rootless: boolean): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      await runtime.ping();
      return;
    } catch (err) {
      if (!rootless && /runs as root/.test((err as Error).message)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe('PodmanRuntime refuses, saying what to do', () => {
  it('an engine that is not Podman (Docker on its socket)', async () => {
    const runtime = new PodmanRuntime({ socketPath: '/var/run/docker.sock' });
    await expect(runtime.ping()).rejects.toThrow(
      /answers as Docker .*, not as Podman: point the node at Podman's socket or choose the runtime docker/,
    );
  });

  it('a Podman that runs as root when rootless was asked; the same one when root is allowed', async () => {
    const dir = await tempDir();
    const socket = join(dir, 'podman.sock');
    const service = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], {
      stdio: 'ignore',
    });
    cleanups.push(async () => service.kill('SIGTERM'));
    const rootless = new PodmanRuntime({ socketPath: socket });
    await waitForSocket(rootless, false);
    await expect(rootless.ping()).rejects.toBeInstanceOf(RuntimeUnavailableError);
    await expect(rootless.ping()).rejects.toThrow(
      /runs as root, but rootless Podman was asked: run its API service as an unprivileged user/,
    );
    const rootful = new PodmanRuntime({ socketPath: socket, rootless: false });
    expect((await rootful.ping()).version).toMatch(/^\d+\.\d+\.\d+/);
    expect(rootful.info?.rootless).toBe(false);
  });

  it('a Podman that is too old', async () => {
    const dir = await tempDir();
    const socket = join(dir, 'old.sock');
    // What Podman 3.4 answers on these two calls (its compat and libpod version reports).
    const server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url?.includes('/libpod/info')) {
        res.end(JSON.stringify({ version: { Version: '3.4.4' }, host: { security: { rootless: true } } }));
      } else if (req.url?.endsWith('/version')) {
        res.end(JSON.stringify({ Version: '3.4.4', ApiVersion: '1.40', Os: 'linux', Arch: 'amd64' }));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    await expect(new PodmanRuntime({ socketPath: socket }).ping()).rejects.toThrow(
      /Podman 3\.4\.4 is too old: the node needs Podman 4\.0\.0 or newer/,
    );
  });

  it('a socket nobody serves, and a host without Podman at all', async () => {
    const socket = join(await tempDir(), 'none.sock');
    const runtime = new PodmanRuntime({ socketPath: socket });
    await expect(runtime.ping()).rejects.toThrow(
      new RegExp(`Podman \\(${socket}\\) does not answer .*systemctl --user enable --now podman.socket`),
    );
    const path = process.env['PATH'];
    process.env['PATH'] = await tempDir();
    try {
      await expect(runtime.ping()).rejects.toThrow(
        /Podman is not installed: install it \('apt-get install podman uidmap slirp4netns fuse-overlayfs'\)/,
      );
    } finally {
      process.env['PATH'] = path;
    }
  });

  it('compares versions numerically', () => {
    expect(versionAtLeast('4.3.1', '4.0.0')).toBe(true);
    expect(versionAtLeast('4.0.0-rc1', '4.0.0')).toBe(true);
    expect(versionAtLeast('3.10.2', '4.0.0')).toBe(false);
    expect(versionAtLeast('10.0', '4.0.0')).toBe(true);
  });
});

describe('PodmanRuntime pull-if-newer', () => {
  it('keeps the local image at once when the registry does not answer (Podman would retry for seconds)', async () => {
    const uid = execFileSync('id', ['-u', process.env['FEDERA_PODMAN_USER'] ?? 'federa-podman'], {
      encoding: 'utf8',
    }).trim();
    const socketPath = process.env['FEDERA_PODMAN_SOCKET'] ?? `/run/user/${uid}/podman/podman.sock`;
    const runtime = new PodmanRuntime({ socketPath });
    await runtime.ping();
    // A local image whose registry (port 1 of this host) answers nobody.
    const repo = `127.0.0.1:1/${RUN}/helper`;
    await new Docker({ socketPath }).getImage('federa/helper:local').tag({ repo, tag: 'local' });
    cleanups.push(() => new Docker({ socketPath }).getImage(`${repo}:local`).remove());
    const local = await runtime.inspectImage(`${repo}:local`);
    const t0 = Date.now();
    const result = await runtime.pullIfNewer(`${repo}:local`);
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(result).toMatchObject({ action: 'local-fallback', imageId: local?.id });
    expect(result.warning).toMatch(
      /registry 127\.0\.0\.1:1 does not answer: .*ECONNREFUSED.*; using the local image/,
    );
    // No local image and no registry: missing, after the pull itself was tried.
    expect((await runtime.pullIfNewer(`127.0.0.1:1/${RUN}/none:1`)).action).toBe('missing');
  });
});

describe('missingRootlessFeatures', () => {
  async function host(files: Record<string, string>, executables: string[]): Promise<string> {
    const root = await tempDir();
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(root, path, '..'), { recursive: true });
      await writeFile(join(root, path), text);
    }
    for (const bin of executables) {
      await mkdir(join(root, 'usr/bin'), { recursive: true });
      await writeFile(join(root, 'usr/bin', bin), '#!/bin/sh\n');
      await chmod(join(root, 'usr/bin', bin), 0o755);
    }
    return root;
  }
  const user = { name: 'hospital', uid: 1234 };

  it('finds nothing missing on a host that has it all', async () => {
    const root = await host(
      {
        'proc/sys/user/max_user_namespaces': '28633\n',
        'etc/subuid': 'hospital:100000:65536\n',
        'etc/subgid': '1234:100000:65536\n',
        'dev/net/tun': '',
      },
      ['newuidmap', 'newgidmap', 'slirp4netns'],
    );
    const cgroup = { version: 'v2', controllers: ['cpu', 'memory', 'pids', 'io'] };
    const engine = { storageDriver: 'overlay', networkBackend: 'netavark' };
    expect(await missingRootlessFeatures({ user, root, path: '/usr/bin', cgroup, engine })).toEqual([]);
  });

  it('names each missing feature with what to do', async () => {
    const root = await host(
      {
        'proc/sys/user/max_user_namespaces': '0\n',
        'proc/sys/kernel/unprivileged_userns_clone': '0\n',
        'etc/subuid': 'someone:100000:65536\n',
      },
      ['newgidmap'],
    );
    const missing = await missingRootlessFeatures({
      user,
      root,
      path: '/usr/bin',
      cgroup: { version: 'v1', controllers: [] },
      engine: { storageDriver: 'vfs', networkBackend: 'cni' },
    });
    expect(missing.map((m) => m.feature)).toEqual([
      'user namespaces (user.max_user_namespaces is 0 or unreadable)',
      'unprivileged user namespaces (kernel.unprivileged_userns_clone is 0)',
      'a subordinate id range for hospital in /etc/subuid',
      'a subordinate id range for hospital in /etc/subgid',
      'newuidmap (setuid helper)',
      'slirp4netns (the network of rootless containers)',
      '/dev/net/tun, readable and writable by this user (slirp4netns opens it)',
      'cgroup v2 (this host has v1): rootless containers get no resource limits',
      'overlay storage (Podman uses vfs here, which copies an image whole for every run: seconds per run for a large image)',
      'the netavark network backend (Podman uses cni here: its networks have no names for their containers)',
    ]);
    expect(missing.find((m) => m.feature.startsWith('newuidmap'))?.fix).toBe('apt-get install uidmap');
  });
});
