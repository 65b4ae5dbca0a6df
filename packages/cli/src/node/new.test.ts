import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { Asker } from '../util/asker.js';
import { KEYS, PromptDriver, tempXdg, uniqueName } from '@federa/testing';
import { checkNodeConfig } from '../config/validate.js';
import { newNodeConfig, parseDataSource } from './new.js';

const dirs = tempXdg();
afterAll(() => dirs.cleanup());
const patients = join(dirs.root, 'patients.csv');
mkdirSync(dirs.root, { recursive: true });
writeFileSync(patients, 'age\n1\n');

describe('vnode new, driven through its prompts', () => {
  it('asks every question and writes a configuration the node accepts', async () => {
    const name = uniqueName('wiz node');
    const driver = new PromptDriver([
      { ask: /Name of the node configuration/, type: `${name}${KEYS.enter}` },
      { ask: /Environment/, type: KEYS.enter }, // default: application
      { ask: /API key of the node/, type: `0b9c3a5e-key${KEYS.enter}` },
      { ask: /Server URL/, type: KEYS.enter },
      { ask: /Server port/, type: `70x${KEYS.enter}` }, // refused: not a number
      { ask: /expected a whole number/, type: `\x7f\x7f\x7f7601${KEYS.enter}` },
      { ask: /API path of the server/, type: KEYS.enter },
      { ask: /Path or URI of the 'default' data source/, type: `/no/such/patients.csv${KEYS.enter}` },
      // Refused: the file does not exist. Then a path relative to the working directory, stored absolute.
      {
        ask: /no file at \/no\/such\/patients\.csv/,
        type: `${'\x7f'.repeat(22)}${relative(process.cwd(), patients)}${KEYS.enter}`,
      },
      { ask: /Type of that data source/, type: KEYS.enter }, // guessed: csv
      { ask: /Add another data source\?/, type: `y${KEYS.enter}` },
      { ask: /Label of the data source/, type: `omop${KEYS.enter}` },
      { ask: /Path or URI of 'omop'/, type: `postgresql://db/omop${KEYS.enter}` },
      { ask: /Type of 'omop'/, type: KEYS.enter }, // guessed: sql
      { ask: /Add another data source\?/, type: `n${KEYS.enter}` },
      { ask: /Log level/, type: `${KEYS.down}${KEYS.enter}` }, // INFO → WARNING? (order DEBUG, INFO, …; default INFO)
      { ask: /VPN subnet/, type: `10.76.0.0/16${KEYS.enter}` },
      { ask: /Is the collaboration encrypted\?/, type: `y${KEYS.enter}` },
      { ask: /private key/, type: `keys/org.pem${KEYS.enter}` },
    ]);
    const result = await newNodeConfig({ scope: 'user' }, new Asker(true, driver.streams), dirs.env);
    expect(driver.unanswered).toEqual([]);
    expect(result.name).toBe(name.replace(' ', '-'));
    expect(result.file).toBe(`${dirs.env.XDG_CONFIG_HOME}/federa/node/${result.name}.yaml`);
    const doc = yaml.load(readFileSync(result.file, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(['application', 'environments']);
    expect(Object.keys(doc.environments as object)).toEqual(['prod', 'acc', 'test', 'dev']);
    expect(doc.application).toEqual({
      api_key: '0b9c3a5e-key',
      server_url: 'http://host.docker.internal',
      port: 7601,
      api_path: '/api',
      databases: [
        { label: 'default', uri: patients, type: 'csv' },
        { label: 'omop', uri: 'postgresql://db/omop', type: 'sql' },
      ],
      logging: { level: 'WARNING', use_console: true },
      encryption: { enabled: true, private_key: join(process.cwd(), 'keys/org.pem') },
      vpn_subnet: '10.76.0.0/16',
    });
  });

  it('writes a configuration from flags alone, without asking', async () => {
    const name = uniqueName('flags');
    const result = await newNodeConfig(
      {
        scope: 'system',
        name,
        apiKey: 'k',
        serverUrl: 'https://federa.example.org',
        port: '443',
        database: ['default=/etc/hostname'],
      },
      new Asker(false),
      dirs.env,
    );
    expect(result.file.startsWith(dirs.env.XDG_CONFIG_DIRS)).toBe(true);
    const raw = checkNodeConfig(result.file, 'application', name, dirs.env);
    expect(raw).toMatchObject({
      server_url: 'https://federa.example.org',
      port: 443,
      databases: [{ label: 'default', uri: '/etc/hostname', type: 'other' }],
    });
  });

  it('refuses a data file that does not exist and stores a relative one as an absolute path', async () => {
    await expect(
      newNodeConfig(
        { scope: 'user', name: uniqueName('nofile'), apiKey: 'k', database: ['default=./missing.csv'] },
        new Asker(false),
        dirs.env,
      ),
    ).rejects.toThrow(new RegExp(`--database default: no file at ${join(process.cwd(), 'missing.csv')}`));
    const result = await newNodeConfig(
      {
        scope: 'user',
        name: uniqueName('rel'),
        apiKey: 'k',
        database: [`default=${relative(process.cwd(), patients)}`],
      },
      new Asker(false),
      dirs.env,
    );
    expect(result.values.databases).toEqual([{ label: 'default', uri: patients, type: 'csv' }]);
  });

  it('on an existing name, says how to change the configuration', async () => {
    const name = uniqueName('again');
    const opts = { scope: 'user' as const, name, apiKey: 'k', database: [`default=${patients}`] };
    await newNodeConfig(opts, new Asker(false), dirs.env);
    await expect(newNodeConfig(opts, new Asker(false), dirs.env)).rejects.toThrow(
      new RegExp(
        `already has an environment 'application'.*vnode set -n ${name} --user -e application <key>=<value>`,
      ),
    );
  });

  it('names the missing flag when it cannot ask', async () => {
    await expect(
      newNodeConfig({ scope: 'user', name: uniqueName('x') }, new Asker(false), dirs.env),
    ).rejects.toThrow(/--api-key is required/);
  });

  it('refuses an invalid name and a bad data source', async () => {
    await expect(
      newNodeConfig({ scope: 'user', name: 'no/slash', apiKey: 'k' }, new Asker(false), dirs.env),
    ).rejects.toThrow(/not a valid name/);
    expect(() => parseDataSource('1abc=/x.csv')).toThrow(/label/);
    expect(() => parseDataSource('a:bogus=/x.csv')).toThrow(/type 'bogus'/);
    expect(parseDataSource('omop:sql=postgresql://h/db')).toEqual({
      label: 'omop',
      uri: 'postgresql://h/db',
      type: 'sql',
    });
  });
});
