/**
 * `vnode start --runtime podman` and `vnode stop` as a node admin runs them: the real `vnode` program, run as the
 * unprivileged user of rootless Podman (scripts/podman-rootless.sh), against a real server; and the refusals.
 * Runs as root (it switches to that user with runuser).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createFederation, startE2eServer } from '@federa/testing';

import { CliError } from '../exit-codes.js';
import { chooseRuntime, startNodeOnPodman } from './podman-start.js';

const run = promisify(execFile);
const VNODE = fileURLToPath(new URL('../../dist/bin/vnode.js', import.meta.url));
const USER = process.env['FEDERA_PODMAN_USER'] ?? 'federa-podman';
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

describe('the runtime of vnode start', () => {
  it('is the flag, else the configuration, else Docker; a contradiction or an unknown one is refused', () => {
    expect(chooseRuntime(undefined, undefined)).toBe('docker');
    expect(chooseRuntime(undefined, 'podman')).toBe('podman');
    expect(chooseRuntime('podman', undefined)).toBe('podman');
    expect(() => chooseRuntime('docker', 'podman')).toThrow(
      /--runtime docker contradicts the configuration's container_runtime: podman/,
    );
    expect(() => chooseRuntime('lxc', undefined)).toThrow(CliError);
  });

  it('refuses to start a Podman node as root', async () => {
    await expect(
      startNodeOnPodman(
        { type: 'node', name: 'x', scope: 'user', file: '/nonexistent.yaml' },
        { environment: 'application', wait: 1 },
        {},
        0,
      ),
    ).rejects.toThrow(/must not run as root: run 'vnode start' as the unprivileged user/);
  });
});

describe('vnode start --runtime podman', () => {
  it('starts the node as the unprivileged user, online at the server; vnode stop stops it', async () => {
    const uid = Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' }).trim());
    const server = await startE2eServer();
    cleanups.push(() => server.close());
    const tag = `podman-cli-${Date.now().toString(36)}`;
    const fed = await createFederation(server, false, tag, ['age\n1\n']);
    const org = fed.orgs[0]!;
    const dir = mkdtempSync(join(tmpdir(), `${tag}-`));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    // The node leaves its network and data volume for its next start; the test's are removed by its tag.
    cleanups.push(() => {
      const podman = (...args: string[]) =>
        execFileSync(
          'runuser',
          ['-u', USER, '--', 'env', `XDG_RUNTIME_DIR=/run/user/${uid}`, 'podman', ...args],
          {
            encoding: 'utf8',
          },
        );
      podman('network', 'rm', '-f', `federa-${tag}-net`);
      const volumes = podman('volume', 'ls', '-q')
        .split('\n')
        .filter((v) => v.startsWith(`federa-${tag}-`));
      if (volumes.length > 0) podman('volume', 'rm', '-f', ...volumes);
    });
    writeFileSync(join(dir, 'data.csv'), 'age\n1\n');
    const file = join(dir, `${tag}.yaml`);
    writeFileSync(
      file,
      [
        'application:',
        `  api_key: ${org.apiKey}`,
        '  server_url: http://127.0.0.1',
        `  port: ${server.port}`,
        '  api_path: /api',
        `  databases: [{label: default, uri: ${join(dir, 'data.csv')}, type: csv}]`,
        `  directories: {data: ${join(dir, 'data')}, log: ${join(dir, 'log')}}`,
        '  proxy_port: 0',
        '',
      ].join('\n'),
    );
    execFileSync('chown', ['-R', `${uid}:${uid}`, dir]);
    const asUser = (...args: string[]) =>
      run(
        'runuser',
        [
          '-u',
          USER,
          '--',
          'env',
          `XDG_RUNTIME_DIR=/run/user/${uid}`,
          `HOME=${dir}`,
          process.execPath,
          VNODE,
          ...args,
        ],
        {
          timeout: 120_000,
        },
      );
    const started = await asUser('start', '-c', file, '--runtime', 'podman', '--wait', '90');
    cleanups.push(() => asUser('stop', '-c', file).catch(() => undefined));
    expect(started.stdout).toMatch(/runs on this host as process \d+, its algorithms on rootless Podman/);
    const status = async () =>
      (await server.api<{ status: string }>('GET', `/node/${org.nodeId}`)).body.status;
    for (let i = 0; i < 100 && (await status()) !== 'online'; i++)
      await new Promise((r) => setTimeout(r, 200));
    expect(await status()).toBe('online');
    // The node process belongs to the user, not to root.
    const pid = started.stdout.match(/process (\d+)/)?.[1] ?? '';
    expect(execFileSync('ps', ['-o', 'user=', '-p', pid], { encoding: 'utf8' }).trim()).toBe(USER);

    await expect(asUser('start', '-c', file, '--runtime', 'podman')).rejects.toThrow(/is running already/);
    expect((await asUser('stop', '-c', file)).stdout).toBe(`Stopped ${tag}\n`);
    for (let i = 0; i < 100 && (await status()) !== 'offline'; i++)
      await new Promise((r) => setTimeout(r, 200));
    expect(await status()).toBe('offline');
    // A configuration that names Podman is never looked for in Docker.
    writeFileSync(file, readFileSync(file, 'utf8') + '  container_runtime: podman\n');
    await expect(asUser('stop', '-c', file)).rejects.toThrow(/the node '[^']+' is not running/);
  });
});
