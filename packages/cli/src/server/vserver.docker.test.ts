/**
 * `vserver` against the real Docker engine with the locally built image (scripts/build-infra-images.sh):
 * new → start → version → list → import → stop.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
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
import { CLI_VERSION } from '../version.js';
import { ownCheckout } from '../util/source.js';
import { buildServerProgram } from './program.js';

const dirs = tempXdg();
useXdg(dirs);
const name = uniqueName('vs');
const container = `federa-${name}-user-server`;
const vserver = (...args: string[]) => runCli(buildServerProgram, args);

beforeAll(() => {
  requireDocker();
  requireImage(infraImage('server'));
});

afterAll(() => {
  dockerQuiet('rm', '-f', container);
  dockerQuiet('network', 'rm', `federa-${name}-user-network`);
  dirs.cleanup();
});

describe('vserver with Docker', () => {
  let port = 0;

  it('new with flags, then start runs the image and waits until the server answers', async () => {
    port = await freePort();
    const made = await vserver(
      'new',
      '--user',
      '-n',
      name,
      '--port',
      String(port),
      '--root-email',
      'root@example.org',
      '--root-password',
      'Root-Password-1!',
      '--yes',
    );
    expect(made.code).toBe(0);

    const started = await vserver(
      'start',
      '--image',
      infraImage('server'),
      '--user',
      '-n',
      name,
      '--wait',
      '120',
    );
    expect(started.stderr).toMatch(/waiting for the server to answer/);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stderr).toMatch(/✓ waiting for the server to answer .*version/);
    expect(started.stderr).toMatch(/using the local image/); // no registry reachable here
    const labels = JSON.parse(docker('inspect', '--format', '{{json .Config.Labels}}', container)) as Record<
      string,
      string
    >;
    expect(labels).toMatchObject({ 'federa-type': 'server', name });
    const mounts = docker('inspect', '--format', '{{range .Mounts}}{{.Destination}} {{end}}', container);
    expect(mounts).toContain('/mnt/config.yaml');
    expect(mounts).toContain('/mnt/database');
    expect(existsSync(join(dirs.env.XDG_DATA_HOME, 'federa', 'server', name, 'default.sqlite'))).toBe(true);
  }, 180_000);

  it('version reports the running server and the CLI; list shows it online; a second start is refused', async () => {
    const version = await vserver('version', '--user', '-n', name);
    expect(version.code).toBe(0);
    expect(JSON.parse(version.stdout)).toEqual({
      server: expect.stringMatching(/^\d+\.\d+\.\d+/),
      cli: CLI_VERSION,
    });

    const list = await vserver('list');
    expect(list.stdout).toMatch(new RegExp(`${name}\\s+user\\s+online\\s+prod`));

    const again = await vserver('start', '--image', infraImage('server'), '--user', '-n', name);
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/running already/);
  });

  it('import runs vserver-local import in a one-off container: organizations, users, nodes with their keys', async () => {
    const fixture = join(dirs.root, 'fixture.yaml');
    const org = (n: string) => ({
      name: n,
      domain: `${n.toLowerCase()}.example.org`,
      address1: '',
      address2: '',
      zipcode: '',
      country: 'NL',
      public_key: '',
    });
    const betaKey = '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d';
    writeFileSync(
      fixture,
      yaml.dump({
        organizations: [
          // Fixture passwords are not held to the password policy.
          {
            ...org('Alpha'),
            users: [
              { username: 'alice', firstname: 'Alice', lastname: 'A', password: 'pw', roles: ['super'] },
            ],
          },
          { ...org('Beta'), users: [] },
        ],
        collaborations: [
          {
            name: 'study',
            encrypted: false,
            participants: [
              { name: 'Alpha', api_key: '123e4567-e89b-12d3-a456-426614174000' },
              { name: 'Beta', api_key: betaKey },
            ],
            tasks: ['federa/average-python:local'],
          },
        ],
      }),
    );
    // This checkout's importer (the image may be older): --mount-src.
    const src = ownCheckout() ?? '';
    const imported = await vserver(
      'import',
      '--image',
      infraImage('server'),
      '--user',
      '-n',
      name,
      '--mount-src',
      src,
      fixture,
    );
    expect(imported.code, imported.stderr).toBe(0);
    // Each new node's API key, printed once.
    expect(imported.stdout).toMatch(new RegExp(`^  beta-study-node \\(Beta in study\\): ${betaKey}$`, 'm'));
    // The local image is used as it is: the registry is not asked again.
    expect(imported.stderr).not.toMatch(/checking the registry/);
    expect(imported.stdout).toMatch(/^organizations: 2 created \(Alpha, Beta\)/m);
    expect(imported.stdout).toMatch(/^users: 1 created \(alice\)/m);
    expect(imported.stdout).toMatch(/^nodes: 2 created \(alpha-study-node, beta-study-node\)/m);
    expect(imported.stdout).toMatch(/^tasks: 1 created/m);
    expect(docker('ps', '-aq', '--filter', `name=federa-${name}-user-import`)).toBe('');

    // The running server sees it at once: the user and the node log in with the fixture's password and key.
    const api = `http://127.0.0.1:${port}/api`;
    const post = (path: string, body: unknown) =>
      fetch(`${api}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post('/token/user', { username: 'alice', password: 'pw' })).status).toBe(200);
    expect((await post('/token/node', { api_key: betaKey })).status).toBe(200);

    const again = await vserver(
      'import',
      '--image',
      infraImage('server'),
      '--user',
      '-n',
      name,
      '--mount-src',
      src,
      fixture,
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^organizations: 0 created, 2 already there/m);
    expect(again.stdout).toMatch(/^nodes: 0 created, 2 already there/m);
    expect(again.stdout).not.toMatch(/API keys/);

    writeFileSync(
      fixture,
      yaml.dump({ collaborations: [{ name: 'x', participants: [{ name: 'Alpha', api_key: 'nope' }] }] }),
    );
    const bad = await vserver(
      'import',
      '--image',
      infraImage('server'),
      '--user',
      '-n',
      name,
      '--mount-src',
      src,
      fixture,
    );
    expect(bad.code).toBe(3);
    // The admin's file and line, not the path inside the container.
    expect(bad.stdout + bad.stderr).toContain(
      `${fixture}:5: collaborations[0].participants[0].api_key: expected a UUID`,
    );
    expect(bad.stdout + bad.stderr).not.toContain('/mnt/import.yaml');

    // An unknown key (organizations under a collaboration) is refused, nothing is made.
    writeFileSync(fixture, 'collaborations:\n  - name: empty-by-mistake\n    organizations: [Alpha, Beta]\n');
    const unknown = await vserver(
      'import',
      '--image',
      infraImage('server'),
      '--user',
      '-n',
      name,
      '--mount-src',
      src,
      fixture,
    );
    expect(unknown.code).toBe(3);
    expect(unknown.stdout + unknown.stderr).toContain(
      `${fixture}:3: collaborations[0].organizations: unknown key 'organizations'`,
    );
  }, 120_000);

  it('stop stops the container and removes its network', async () => {
    const stopped = await vserver('stop', '--user', '-n', name);
    expect(stopped.code).toBe(0);
    expect(docker('ps', '-a', '--filter', `name=^${container}$`, '--format', '{{.Names}}')).toBe('');
    expect(docker('network', 'ls', '--filter', `name=federa-${name}`, '--format', '{{.Name}}')).toBe('');
    expect((await vserver('list')).stdout).toMatch(new RegExp(`${name}\\s+user\\s+offline`));
    // The server in the container kept its audit log in the host's data folder (docs/audit.md): each start and
    // stop, the logins of this test, the import's one-off container in a chain of its own.
    const audited = await vserver('audit', 'verify', '--user', '-n', name);
    expect(audited.code, audited.stderr).toBe(0);
    expect(audited.stdout).toMatch(/^OK: chain 'import': \d+ entries intact/m);
    expect(audited.stdout).toMatch(/^OK: chain 'server': \d+ entries intact/m);
    const events = readFileSync(
      join(dirs.env.XDG_DATA_HOME, 'federa', 'server', name, 'audit', 'server.jsonl'),
      'utf8',
    )
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { event: string }).event);
    expect(events[0]).toBe('server.started');
    expect(events.at(-1)).toBe('server.stopped');
  }, 60_000);
});
