/**
 * The first hour of a node admin and a server admin, driven through `vnode` and `vserver` as they would type them,
 * against the real Docker engine (images of scripts/build-infra-images.sh; the node runs this checkout with
 * --develop). What goes wrong in that hour must say so, say what to do, and exit with the code docs/cli.md gives.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  docker,
  dockerQuiet,
  freePort,
  requireDocker,
  requireImage,
  runCli,
  tempXdg,
  uniqueName,
  useXdg,
  infraImage,
} from '@federa/testing';
import { ownCheckout } from '../util/source.js';
import { buildServerProgram } from '../server/program.js';
import { buildNodeProgram } from './program.js';

const dirs = tempXdg();
useXdg(dirs);
const nodeName = uniqueName('fh-node');
const serverName = uniqueName('fh-srv');
const clashName = uniqueName('fh-clash');
const vnode = (...args: string[]) => runCli(buildNodeProgram, args);
const vserver = (...args: string[]) => runCli(buildServerProgram, args);
const checkout = ownCheckout() ?? '';
const csv = join(dirs.root, 'ages.csv');

beforeAll(() => {
  requireDocker();
  requireImage(infraImage('node'));
  requireImage(infraImage('server'));
  writeFileSync(csv, 'age\n20\n30\n');
});

afterAll(() => {
  for (const c of [
    `federa-${nodeName}-user`,
    `federa-${serverName}-user-server`,
    `federa-${clashName}-user-server`,
  ])
    dockerQuiet('rm', '-f', c);
  for (const v of docker('volume', 'ls', '-q', '--filter', `name=federa-${nodeName}`)
    .split('\n')
    .filter(Boolean))
    dockerQuiet('volume', 'rm', '-f', v);
  dockerQuiet(
    'network',
    'rm',
    `federa-${nodeName}-net`,
    `federa-${serverName}-user-network`,
    `federa-${clashName}-user-network`,
  );
  dirs.cleanup();
});

describe('a node admin whose server URL the container cannot reach', () => {
  it('vnode start reports the node’s own verdict, says what to do, and exits 8', async () => {
    const port = await freePort();
    const made = await vnode(
      'new',
      '-n',
      nodeName,
      '--api-key',
      'some-key',
      '--server-url',
      'http://localhost',
      '--port',
      String(port),
      '--database',
      `default=${csv}`,
      '--yes',
    );
    expect(made.code, made.stderr).toBe(0);
    const run = await vnode(
      'start',
      '--image',
      infraImage('node'),
      '-n',
      nodeName,
      '--wait',
      '8',
      '--develop',
      checkout,
    );
    expect(run.code, run.stderr).toBe(8);
    expect(run.stderr).toMatch(
      new RegExp(`✗ waiting for the node to come online: server unreachable at http://localhost:${port}/api`),
    );
    expect(run.stderr).toMatch(/'localhost' inside the node's container is the container itself/);
    expect(run.stderr).toMatch(/server_url=http:\/\/host\.docker\.internal/);
    expect(run.stderr).not.toMatch(/warning: the node container runs/);
    // The node's own log names the URL it tries.
    expect(docker('logs', `federa-${nodeName}-user`)).toMatch(
      new RegExp(`server unreachable at http://localhost:${port}/api`),
    );
  }, 120_000);

  it('vnode list shows the container running and, separately, that the server is not reachable', async () => {
    const list = await vnode('list');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/NAME\s+SCOPE\s+CONTAINER\s+SERVER/);
    expect(list.stdout).toMatch(new RegExp(`${nodeName}\\s+user\\s+running\\s+unreachable`));
    expect(list.stdout).not.toMatch(new RegExp(`${nodeName}\\s+user\\s+online`));
  }, 30_000);

  it('vnode create-private-key is refused while the node runs with its current key', async () => {
    const made = await vnode('create-private-key', '-n', nodeName, '-o', 'Org', '--no-upload');
    expect(made.code).toBe(5);
    expect(made.stderr).toMatch(/is running with its current key/);
    expect(made.stderr).toMatch(/Stop it first \(vnode stop -n /);
  }, 30_000);

  it('vnode attach shows readable lines (--json for raw), --tail N; vnode files lists no unwritten log file', async () => {
    const readable = await vnode('attach', '-n', nodeName, '--tail', '3', '--no-follow');
    expect(readable.code, readable.stderr).toBe(0);
    const lines = readable.stdout.trim().split('\n');
    expect(lines.length).toBeLessThanOrEqual(3);
    expect(readable.stdout).toMatch(/^\d\d:\d\d:\d\d (INFO|WARN) /m);
    expect(readable.stdout).not.toMatch(/"level":/);
    const raw = await vnode('attach', '-n', nodeName, '--tail', '2', '--no-follow', '--json');
    expect(raw.stdout).toMatch(/"level":\d+/);

    const files = await vnode('files', '-n', nodeName);
    expect(files.stdout).not.toMatch(/log file:/);
    expect(files.stdout).toMatch(/logs:\s+the container's output: vnode attach -n /);
  }, 30_000);

  it('vnode stop --all asks first and stops nothing without --yes', async () => {
    const stop = await vnode('stop', '--all');
    expect(stop.code).toBe(6);
    expect(stop.stdout).toContain(`federa-${nodeName}-user`);
    expect(stop.stderr).toMatch(/Pass --yes to confirm/);
    expect(docker('ps', '-q', '--filter', `name=^federa-${nodeName}-user$`)).not.toBe('');
    expect((await vnode('stop', '-n', nodeName)).code).toBe(0);
    const list = await vnode('list');
    expect(list.stdout).toMatch(new RegExp(`${nodeName}\\s+user\\s+(-|stopped)\\s+unreachable`));
  }, 60_000);
});

describe('a server admin starting a server, and a node with a wrong API key', () => {
  let port = 0;

  it('vserver start prints the generated root password once, plainly', async () => {
    port = await freePort();
    expect(
      (
        await vserver(
          'new',
          '--user',
          '-n',
          serverName,
          '--port',
          String(port),
          '--root-email',
          'r@example.org',
          '--yes',
        )
      ).code,
    ).toBe(0);
    const started = await vserver(
      'start',
      '--image',
      infraImage('server'),
      '--user',
      '-n',
      serverName,
      '--wait',
      '120',
    );
    expect(started.code, started.stderr).toBe(0);
    const password = /generated password[^\n]*:\n\n {4}(\S+)\n/.exec(started.stderr)?.[1] ?? '';
    expect(password).not.toBe('');
    const res = await fetch(`http://127.0.0.1:${port}/api/token/user`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'root', password }),
    });
    expect(res.status).toBe(200);

    // attach: readable lines, the address to use (the host port, not the container's 5000), --json for raw.
    const attach = await vserver('attach', '--user', '-n', serverName, '--tail', '5', '--no-follow');
    expect(attach.code, attach.stderr).toBe(0);
    expect(attach.stderr).toContain(`API at http://127.0.0.1:${port}/api`);
    expect(attach.stdout).toMatch(/^\d\d:\d\d:\d\d (INFO|WARN) /m);
    expect(attach.stdout).not.toMatch(/"level":/);
    expect(attach.stdout).not.toMatch(/^\{/m);
    expect(
      (await vserver('attach', '--user', '-n', serverName, '--tail', '1', '--no-follow', '--json')).stdout,
    ).toMatch(/"level":/);
    const files = await vserver('files', '--user', '-n', serverName);
    expect(files.stdout).not.toMatch(/log file:/);
    expect(files.stdout).toMatch(/logs:\s+the container's output: vserver attach/);
  }, 180_000);

  it('a second server on the same port: a clear message, and no network left behind', async () => {
    expect(
      (
        await vserver(
          'new',
          '--user',
          '-n',
          clashName,
          '--port',
          String(port),
          '--root-email',
          'r@example.org',
          '--yes',
        )
      ).code,
    ).toBe(0);
    const clash = await vserver(
      'start',
      '--image',
      infraImage('server'),
      '--user',
      '-n',
      clashName,
      '--wait',
      '10',
    );
    expect(clash.code).toBe(5);
    expect(clash.stderr).toMatch(new RegExp(`the port 0\\.0\\.0\\.0:${port} is already in use on this host`));
    expect(clash.stderr).toMatch(/-p <port>/);
    expect(docker('network', 'ls', '-q', '--filter', `name=federa-${clashName}`)).toBe('');
    expect(docker('ps', '-aq', '--filter', `name=federa-${clashName}`)).toBe('');
  }, 60_000);

  it('vnode start with an API key the server refuses says so and exits 7', async () => {
    expect(
      (await vnode('set', '-n', nodeName, 'server_url=http://host.docker.internal', `port=${port}`)).code,
    ).toBe(0);
    const run = await vnode(
      'start',
      '--image',
      infraImage('node'),
      '-n',
      nodeName,
      '--wait',
      '30',
      '--develop',
      checkout,
    );
    expect(run.code, run.stderr).toBe(7);
    expect(run.stderr).toMatch(/✗ waiting for the node to come online: the server refused the API key/);
    expect(run.stderr).toMatch(/vnode set -n \S+ api_key=<key>/);
    expect((await vserver('stop', '--user', '-n', serverName)).code).toBe(0);
  }, 90_000);
});
