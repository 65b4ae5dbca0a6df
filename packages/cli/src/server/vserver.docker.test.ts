/**
 * `vserver` against the real Docker engine with the locally built image (scripts/build-infra-images.sh):
 * new → start → version → list → import → stop.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docker, dockerQuiet, requireDocker, requireImage, runCli } from '../test-support/cli.js';
import { tempXdg, uniqueName, useXdg } from '../test-support/env.js';
import { freePort } from '../test-support/ports.js';
import { CLI_VERSION } from '../version.js';
import { buildServerProgram } from './program.js';

const dirs = tempXdg();
useXdg(dirs);
const name = uniqueName('vs');
const container = `federa-${name}-user-server`;
const vserver = (...args: string[]) => runCli(buildServerProgram, args);

beforeAll(() => {
  requireDocker();
  requireImage('federa/server:0');
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

    const started = await vserver('start', '--user', '-n', name, '--wait', '120');
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

    const again = await vserver('start', '--user', '-n', name);
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/running already/);
  });

  it('import loads organizations, users and a collaboration with its nodes', async () => {
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
    writeFileSync(
      fixture,
      yaml.dump({
        organizations: [
          {
            ...org('Alpha'),
            users: [{ username: 'alice', firstname: 'Alice', lastname: 'A', password: 'Alice-Password-1!' }],
          },
          { ...org('Beta'), users: [] },
        ],
        collaborations: [
          {
            name: 'study',
            encrypted: false,
            participants: [
              { name: 'Alpha', api_key: '123e4567-e89b-12d3-a456-426614174000' },
              { name: 'Beta' },
            ],
          },
        ],
      }),
    );
    const imported = await vserver('import', '--user', '-n', name, fixture);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('Imported 2 organizations, 1 users, 1 collaborations, 2 nodes');
    expect(imported.stdout).toMatch(/Alpha-study-node\s+\d+\s+\S+/);
    const again = await vserver('import', '--user', '-n', name, fixture);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Imported 0 organizations, 0 users, 0 collaborations');
  }, 60_000);

  it('stop stops the container and removes its network', async () => {
    const stopped = await vserver('stop', '--user', '-n', name);
    expect(stopped.code).toBe(0);
    expect(docker('ps', '-a', '--filter', `name=^${container}$`, '--format', '{{.Names}}')).toBe('');
    expect(docker('network', 'ls', '--filter', `name=federa-${name}`, '--format', '{{.Name}}')).toBe('');
    expect((await vserver('list')).stdout).toMatch(new RegExp(`${name}\\s+user\\s+offline`));
  }, 60_000);
});
