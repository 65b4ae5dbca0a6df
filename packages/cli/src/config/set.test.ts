/** `vnode set` / `vserver set`, as an admin types them: change a key, checked before anything is saved. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempXdg, uniqueName, useXdg } from '@federa/testing';
import { buildNodeProgram } from '../node/program.js';
import { buildServerProgram } from '../server/program.js';

const dirs = tempXdg();
useXdg(dirs);
afterAll(() => dirs.cleanup());
const vnode = (...args: string[]) => runCli(buildNodeProgram, args);
const vserver = (...args: string[]) => runCli(buildServerProgram, args);

describe('vnode set', () => {
  it('changes keys, reading values as YAML, and refuses a bad value without touching the file', async () => {
    const name = uniqueName('set');
    const csv = join(dirs.root, 'a.csv');
    writeFileSync(csv, 'x\n1\n');
    expect(
      (await vnode('new', '-n', name, '--api-key', 'k', '--database', `default=${csv}`, '--yes')).code,
    ).toBe(0);
    const set = await vnode(
      'set',
      '-n',
      name,
      'server_url=http://host.docker.internal',
      'port=7601',
      'encryption.enabled=true',
    );
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/Set server_url, port, encryption.enabled in environment 'application'/);
    const file = join(dirs.env.XDG_CONFIG_HOME, 'federa', 'node', `${name}.yaml`);
    const doc = yaml.load(readFileSync(file, 'utf8')) as { application: Record<string, unknown> };
    expect(doc.application).toMatchObject({
      server_url: 'http://host.docker.internal',
      port: 7601,
      encryption: { enabled: true },
    });

    const before = readFileSync(file, 'utf8');
    const bad = await vnode('set', '-n', name, 'port=five');
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(new RegExp(`${file}: key 'port'`));
    expect(readFileSync(file, 'utf8')).toBe(before);

    const usage = await vnode('set', '-n', name, 'no-equals-sign');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/expected KEY=VALUE/);
  });
});

describe('vnode new, closing hint', () => {
  it('for an encrypted collaboration, says to create the key before the first start (as the README orders it)', async () => {
    const csv = join(dirs.root, 'b.csv');
    writeFileSync(csv, 'x\n1\n');
    const made = await vnode(
      'new',
      '-n',
      uniqueName('enc'),
      '--api-key',
      'k',
      '--database',
      `default=${csv}`,
      '--encryption',
      '--yes',
    );
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(
      /before the first start, create the organization's key[^\n]*: vnode create-private-key -n \S+\nThen start the node with: vnode start -n /,
    );
    const readme = readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'README.md'), 'utf8');
    expect(readme.indexOf('vnode create-private-key -n hospital-a')).toBeLessThan(
      readme.indexOf('vnode start -n hospital-a'),
    );
  });
});

describe('vserver set', () => {
  it('changes the port of a server configuration', async () => {
    const name = uniqueName('sset');
    expect((await vserver('new', '--user', '-n', name, '--root-email', 'a@example.org', '--yes')).code).toBe(
      0,
    );
    const set = await vserver('set', '--user', '-n', name, 'port=7602');
    expect(set.code, set.stderr).toBe(0);
    const file = join(dirs.env.XDG_CONFIG_HOME, 'federa', 'server', `${name}.yaml`);
    const doc = yaml.load(readFileSync(file, 'utf8')) as { environments: { prod: { port: number } } };
    expect(doc.environments.prod.port).toBe(7602);
    expect((await vserver('set', '--user', '-n', name, 'port=-3')).code).toBe(3);
  });
});
