import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@federa/common';

import { loadNodeConfig } from './node-config.js';

const dir = mkdtempSync(join(tmpdir(), 'federa-node-config-'));
writeFileSync(join(dir, 'data.csv'), 'age\n1\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, yaml: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, yaml);
  return file;
}

const minimal = `application:
  api_key: key-1
  server_url: http://localhost
  port: 5000
  api_path: /api
  databases:
    default: data.csv
    pg: postgresql://db.example.org/x
`;

describe('loadNodeConfig', () => {
  it('reads the application environment by default and resolves databases', () => {
    const c = loadNodeConfig({ file: write('alpha', minimal), env: { XDG_DATA_HOME: '/var/x' } });
    expect(c.name).toBe('alpha');
    expect(c.apiBase).toBe('http://localhost:5000/api');
    expect(c.serverBase).toBe('http://localhost:5000');
    expect(c.databases).toEqual([
      { label: 'default', uri: join(dir, 'data.csv'), type: undefined, isFile: true },
      { label: 'pg', uri: 'postgresql://db.example.org/x', type: undefined, isFile: false },
    ]);
    expect(c.dataDir).toBe('/var/x/federa/node/alpha');
    expect(c.encryption).toEqual({
      enabled: false,
      privateKeyPath: '/var/x/federa/node/alpha/private_key.pem',
    });
    expect(c.proxyPort).toBe(8080);
  });

  it('accepts the list form, docker_services, policies, a null port and env overrides', () => {
    const file = write(
      'beta',
      `environments:
  dev:
    api_key: k
    server_url: https://srv.example.org
    port:
    api_path: ''
    databases:
      - {label: default, uri: data.csv, type: csv}
      - {label: sparql, uri: 'http://kg/sparql', type: sparql}
    encryption: {enabled: true, private_key: keys/k.pem}
    docker_services: {db: pg-container}
    container_services: {cache: redis-1}
    algorithm_env: {A: 1, B: x}
    vpn_subnet: 10.76.0.0/16
    policies:
      allowed_algorithms: '^federa/'
      allowed_organizations: [1, org-b]
      allowed_algorithm_stores: https://store.example.org/api
      allow_either_whitelist_or_store: true
      allowed_functions: [partial_average]
    directories: {data: ./d, log: ./l}
    proxy_port: 0
`,
    );
    const c = loadNodeConfig({
      file,
      environment: 'dev',
      name: 'n-1',
      env: { PROXY_SERVER_PORT: '9999', PROXY_SERVER_HOST: 'proxyserver' },
    });
    expect(c.apiBase).toBe('https://srv.example.org');
    expect(c.databases.map((d) => [d.label, d.type, d.isFile])).toEqual([
      ['default', 'csv', true],
      ['sparql', 'sparql', false],
    ]);
    expect(c.containerServices).toEqual({ db: 'pg-container', cache: 'redis-1' });
    expect(c.algorithmEnv).toEqual({ A: '1', B: 'x' });
    expect(c.allowedAlgorithms).toEqual(['^federa/']);
    expect(c.allowedOrganizations).toEqual([1, 'org-b']);
    expect(c.allowedAlgorithmStores).toEqual(['https://store.example.org/api']);
    expect(c.allowEitherWhitelistOrStore).toBe(true);
    expect(c.allowedFunctions).toEqual(['partial_average']);
    expect(c.dataDir).toBe(join(dir, 'd'));
    expect(c.encryption.privateKeyPath).toBe(join(dir, 'd', 'keys/k.pem'));
    expect(c.vpnSubnet).toBe('10.76.0.0/16');
    expect(c.proxyPort).toBe(9999);
    expect(c.proxyHost).toBe('proxyserver');
  });

  it('names the key and the file of a bad value', () => {
    const file = write('bad', minimal.replace('port: 5000', 'port: [1]'));
    expect(() => loadNodeConfig({ file })).toThrow(ConfigError);
    expect(() => loadNodeConfig({ file })).toThrow(/bad\.yaml: key 'port'/);
  });

  it('refuses an unknown key, a missing api_key and a csv database that is not a file', () => {
    expect(() => loadNodeConfig({ file: write('u', `${minimal}  colour: red\n`) })).toThrow(
      /key 'colour': is not a known configuration key/,
    );
    expect(() => loadNodeConfig({ file: write('m', minimal.replace('  api_key: key-1\n', '')) })).toThrow(
      /key 'api_key': is required/,
    );
    expect(() =>
      loadNodeConfig({
        file: write(
          'f',
          minimal.replace(
            '    default: data.csv\n    pg: postgresql://db.example.org/x\n',
            '    - {label: default, uri: nope.csv, type: csv}\n',
          ),
        ),
      }),
    ).toThrow(/key 'databases.0': a csv database must be a file/);
  });

  it('refuses at start an image pattern that would match by prefix or is a regular expression, naming the key', () => {
    expect(() =>
      loadNodeConfig({
        file: write('p1', `${minimal}  policies: {allowed_algorithms: ['^federa/', '^(harbor|federa)/']}\n`),
      }),
    ).toThrow(
      /key 'policies.allowed_algorithms.1': the image pattern "\^\(harbor\|federa\)\/" is a regular expression, not an image pattern/,
    );
    expect(() =>
      loadNodeConfig({ file: write('p2', `${minimal}  allowed_images: ['harbor.example.org/algo.*']\n`) }),
    ).toThrow(/key 'allowed_images.0': .* ends in part of a name/);
    const kept = loadNodeConfig({
      file: write('p3', `${minimal}  policies: {allowed_algorithms: ['^harbor\\.example\\.org/.*']}\n`),
    });
    expect(kept.allowedAlgorithms).toEqual(['^harbor\\.example\\.org/.*']);
  });

  it('refuses a missing environment and a bad node name', () => {
    expect(() => loadNodeConfig({ file: write('e', minimal), environment: 'prod' })).toThrow(
      /environment 'prod' is empty or missing/,
    );
    expect(() => loadNodeConfig({ file: write('e2', minimal), name: 'bad name' })).toThrow(
      /node name 'bad name'/,
    );
  });

  it('uses the fixed mounts and the environment of `vnode start` when dockerized', () => {
    writeFileSync(join(dir, 'mounted.csv'), 'age\n2\n');
    const c = loadNodeConfig({
      file: write(
        'gamma',
        `${minimal}  encryption: {enabled: true, private_key: /home/someone/key.pem}
  directories: {data: /srv/host-data, log: /srv/host-log}
  logging: {file: gamma.log}
`,
      ),
      dockerized: true,
      env: {
        DATA_VOLUME_NAME: 'federa-gamma-user-vol',
        DEFAULT_DATABASE_URI: join(dir, 'mounted.csv'),
        PG_DATABASE_URI: 'postgresql://other/x',
      },
    });
    expect(c.dockerized).toBe(true);
    expect(c.dataDir).toBe('/mnt/data');
    expect(c.logDir).toBe('/mnt/log');
    expect(c.logFile).toBe('/mnt/log/gamma.log');
    expect(c.dataVolumeName).toBe('federa-gamma-user-vol');
    // The host path of the key means nothing in the container: without PRIVATE_KEY the data volume holds it.
    expect(c.encryption.privateKeyPath).toBe('/mnt/data/private_key.pem');
    expect(c.databases).toEqual([
      { label: 'default', uri: join(dir, 'mounted.csv'), type: undefined, isFile: true },
      { label: 'pg', uri: 'postgresql://other/x', type: undefined, isFile: false },
    ]);
  });

  it('resolves relative <LABEL>_DATABASE_URI under /mnt and takes PRIVATE_KEY when dockerized', () => {
    const c = loadNodeConfig({
      file: write('delta', minimal),
      dockerized: true,
      env: { DEFAULT_DATABASE_URI: 'default.csv', PRIVATE_KEY: '/mnt/private_key.pem' },
    });
    expect(c.databases[0]).toMatchObject({ label: 'default', uri: '/mnt/default.csv' });
    expect(c.encryption.privateKeyPath).toBe('/mnt/private_key.pem');
    expect(c.dataVolumeName).toBeUndefined();
  });
});
