/**
 * `vnode` against the real Docker engine: new (flags only), list, files, clean, create-private-key, remove.
 * Needs Docker (scripts/docker-engine.sh) and federa/helper:local (scripts/build-images.sh).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  docker,
  dockerQuiet,
  requireDocker,
  requireImage,
  runCli,
  tempXdg,
  uniqueName,
  useXdg,
} from '@federa/testing';
import { buildNodeProgram } from './program.js';

const dirs = tempXdg();
useXdg(dirs);
const name = uniqueName('vn');
const other = `${name}-2`; // a node whose name starts with ours: its volumes must survive
const volumes = {
  runs: [`federa-${name}-1-tmpvol`, `federa-${name}-17-tmpvol`],
  own: [`federa-${name}-vol`, `federa-${name}-user-vol`, `federa-${name}-user-vpn-vol`],
  foreign: [`federa-${other}-3-tmpvol`, `federa-${other}-vol`, `${name}-unrelated-tmpvol`],
};
const container = `federa-${name}-user`;
const vnode = (...args: string[]) => runCli(buildNodeProgram, args);
const volumeList = (): string[] => docker('volume', 'ls', '--format', '{{.Name}}').split('\n');

beforeAll(() => {
  requireDocker();
  requireImage('federa/helper:local');
});

afterAll(() => {
  dockerQuiet('rm', '-f', container);
  for (const v of [...volumes.runs, ...volumes.own, ...volumes.foreign]) dockerQuiet('volume', 'rm', '-f', v);
  dirs.cleanup();
});

describe('vnode with Docker', () => {
  const data = join(dirs.root, 'patients.csv');

  it('new with flags only writes a valid configuration; list and files show it', async () => {
    writeFileSync(data, 'age,weight\n40,80\n');
    const created = await vnode(
      'new',
      '-n',
      name,
      '--api-key',
      'a6a3c4d2-key',
      '--server-url',
      'http://127.0.0.1',
      '--port',
      '9',
      '--database',
      `default=${data}`,
      '--database',
      'omop:sql=postgresql://db/omop',
      '--yes',
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const file = join(dirs.env.XDG_CONFIG_HOME, 'federa', 'node', `${name}.yaml`);
    expect(created.stdout).toContain(file);
    const doc = yaml.load(readFileSync(file, 'utf8')) as { application: Record<string, unknown> };
    expect(doc.application).toMatchObject({
      api_key: 'a6a3c4d2-key',
      port: 9,
      databases: [
        { label: 'default', uri: data, type: 'csv' },
        { label: 'omop', type: 'sql' },
      ],
    });

    const list = await vnode('list');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${name}\\s+user\\s+-\\s+unreachable\\s+application`));

    const files = await vnode('files', '-n', name);
    expect(files.code).toBe(0);
    expect(files.stdout).toContain(`configuration file:  ${file}`);
    expect(files.stdout).toContain(join(dirs.env.XDG_DATA_HOME, 'federa', 'node', name));
    // No logging.file: the log is the container's output, and files says how to get a file too.
    expect(files.stdout).toMatch(new RegExp(`logs:\\s+the container's output: vnode attach -n ${name}`));
    expect(files.stdout).toContain(join(dirs.env.XDG_CACHE_HOME, 'federa', 'log', 'node', 'node.log'));
    expect(files.stdout).toMatch(new RegExp(`database 'default':\\s+${data}`));
    expect(files.stdout).toMatch(/database 'omop':\s+postgresql:\/\/db\/omop/);
    expect(files.stdout).toMatch(/VPN:\s+not used \(no vpn_subnet in the configuration\)/);
  });

  it('clean removes the run volumes of this node and nothing else, after a confirmation', async () => {
    for (const v of [...volumes.runs, ...volumes.own, ...volumes.foreign]) docker('volume', 'create', v);

    const unconfirmed = await vnode('clean', '-n', name); // stdin is not a terminal: refuses without --yes
    expect(unconfirmed.code).toBe(6);
    expect(unconfirmed.stderr).toMatch(/--yes/);
    expect(volumeList()).toEqual(expect.arrayContaining(volumes.runs));

    const cleaned = await vnode('clean', '-n', name, '--yes');
    expect(cleaned.code).toBe(0);
    expect(cleaned.stdout).toContain('Removed 2 volumes');
    const left = volumeList();
    for (const v of volumes.runs) expect(left).not.toContain(v);
    for (const v of [...volumes.own, ...volumes.foreign]) expect(left).toContain(v);
  });

  it('reports a broken configuration with the key and the file before starting anything', async () => {
    const bad = join(dirs.root, `${name}-bad.yaml`);
    writeFileSync(
      bad,
      yaml.dump({ application: { api_key: 'k', server_url: 'http://127.0.0.1', port: 'five' } }),
    );
    const run = await vnode('start', '-c', bad);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(bad);
    expect(run.stderr).toContain("key 'port'");
    expect(volumeList()).not.toContain(`federa-${name}-bad-user-vol`);
  });

  it('create-private-key writes the key into the data folder and sets it in the configuration', async () => {
    const made = await vnode('create-private-key', '-n', name, '-o', 'Org A', '--no-upload');
    expect(made.code).toBe(0);
    const key = join(dirs.env.XDG_DATA_HOME, 'federa', 'node', name, 'privkey_Org_A.pem');
    expect(readFileSync(key, 'utf8')).toMatch(/BEGIN RSA PRIVATE KEY/);
    const doc = yaml.load(
      readFileSync(join(dirs.env.XDG_CONFIG_HOME, 'federa', 'node', `${name}.yaml`), 'utf8'),
    ) as { application: { encryption: { private_key: string } } };
    expect(doc.application.encryption.private_key).toBe(key);
    const again = await vnode('create-private-key', '-n', name, '-o', 'Org A', '--no-upload');
    expect(again.stdout).toMatch(/Keeping the existing key/);
  });

  it('remove refuses while the node runs, then leaves nothing behind', async () => {
    docker('run', '-d', '--name', container, '--label', 'federa-type=node', 'federa/helper:local');
    expect((await vnode('list')).stdout).toMatch(new RegExp(`${name}\\s+user\\s+running\\s`));
    const refused = await vnode('remove', '-n', name, '--yes');
    expect(refused.code).toBe(5);
    expect(refused.stderr).toMatch(/is running/);
    docker('rm', '-f', container);

    const removed = await vnode('remove', '-n', name, '--yes');
    expect(removed.code).toBe(0);
    expect(existsSync(join(dirs.env.XDG_CONFIG_HOME, 'federa', 'node', `${name}.yaml`))).toBe(false);
    expect(existsSync(join(dirs.env.XDG_DATA_HOME, 'federa', 'node', name))).toBe(false);
    const left = volumeList();
    for (const v of volumes.own) expect(left).not.toContain(v);
    for (const v of volumes.foreign) expect(left).toContain(v);
    expect((await vnode('list')).stdout).not.toContain(name);
    expect(existsSync(data)).toBe(true); // the data source itself is the organization's, not the node's
  });
});
