import { describe, expect, it } from 'vitest';

import type { DatabaseConfig } from '../config/node-config.js';
import { buildAlgorithmEnv, resolveDatabaseLabel } from './environment.js';
import { containerRunFiles, dataVolumeName, networkName, taskFolderName, tmpVolumeName } from './naming.js';

const dbs: DatabaseConfig[] = [
  { label: 'default', uri: '/srv/data/patients.csv', type: 'csv', isFile: true },
  { label: 'pg', uri: 'postgresql://db/x', type: 'sql', isFile: false },
];

describe('algorithm environment', () => {
  it('sets the full 3.11 set, with algorithm_env last', () => {
    const env = buildAlgorithmEnv({
      resultId: 42,
      requestedDatabase: 'pg',
      databases: dbs,
      proxyHost: 'host.docker.internal',
      proxyPort: 8080,
      algorithmEnv: { PORT: '1', EXTRA: 'y' },
    });
    expect(env).toEqual({
      INPUT_FILE: '/mnt/data/task-000000042/input',
      OUTPUT_FILE: '/mnt/data/task-000000042/output',
      TOKEN_FILE: '/mnt/data/task-000000042/token',
      TEMPORARY_FOLDER: '/mnt/tmp',
      HOST: 'http://host.docker.internal',
      PORT: '1',
      API_PATH: '',
      DEFAULT_DATABASE_URI: '/mnt/data/patients.csv',
      DEFAULT_DATABASE_TYPE: 'csv',
      PG_DATABASE_URI: 'postgresql://db/x',
      PG_DATABASE_TYPE: 'sql',
      DATABASE_URI: '/mnt/data/x',
      USER_REQUESTED_DATABASE_LABEL: 'pg',
      DB_LABELS: '["default","pg"]',
      EXTRA: 'y',
    });
  });

  it('falls back to default for an empty or unknown label', () => {
    expect(resolveDatabaseLabel('', dbs)).toEqual({ label: 'default', fellBack: false });
    expect(resolveDatabaseLabel('nope', dbs)).toEqual({ label: 'default', fellBack: true });
    expect(resolveDatabaseLabel('nope', [dbs[1]!])).toEqual({ label: undefined, fellBack: false });
    const env = buildAlgorithmEnv({
      resultId: 1,
      requestedDatabase: 'nope',
      databases: dbs,
      proxyHost: 'h',
      proxyPort: 1,
      algorithmEnv: {},
    });
    expect(env.DATABASE_URI).toBe('/mnt/data/patients.csv');
    expect(env.USER_REQUESTED_DATABASE_LABEL).toBe('default');
  });

  it('names objects and files as the seed and 3.x do', () => {
    const n = { prefix: 'federa', node: 'alpha' };
    expect(networkName(n)).toBe('federa-alpha-net');
    expect(dataVolumeName(n)).toBe('federa-alpha-vol');
    expect(tmpVolumeName(n, 7)).toBe('federa-alpha-7-tmpvol');
    expect(taskFolderName(42)).toBe('task-000000042');
    expect(containerRunFiles(123456789).token).toBe('/mnt/data/task-123456789/token');
  });
});
