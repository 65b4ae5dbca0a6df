import { describe, expect, it } from 'vitest';

import type { DatabaseConfig } from '../config/node-config.js';
import {
  buildAlgorithmEnv,
  fallbackNote,
  missingDatabases,
  resolveDatabaseLabel,
  resolveDatabases,
} from './environment.js';
import { containerRunFiles, dataVolumeName, networkName, taskFolderName, tmpVolumeName } from './naming.js';

const dbs: DatabaseConfig[] = [
  { label: 'default', uri: '/srv/data/patients.csv', type: 'csv', isFile: true },
  { label: 'pg', uri: 'postgresql://db/x', type: 'sql', isFile: false },
];

describe('algorithm environment', () => {
  it('sets the full 3.11 set, with algorithm_env last', () => {
    const env = buildAlgorithmEnv({
      resultId: 42,
      requested: [{ label: 'pg' }],
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
      USER_REQUESTED_DATABASE_LABELS: 'pg',
      DB_LABELS: '["default","pg"]',
      EXTRA: 'y',
    });
  });

  it("points a vantage6 4.x algorithm at the proxy's 4.x path", () => {
    const env = buildAlgorithmEnv({
      resultId: 1,
      requested: [{ label: 'default' }],
      databases: dbs,
      proxyHost: 'h',
      proxyPort: 1,
      apiPath: '/v4',
      algorithmEnv: {},
    });
    expect(env.API_PATH).toBe('/v4');
  });

  it('falls back to default for an empty or unknown label', () => {
    expect(resolveDatabaseLabel('', dbs)).toEqual({ label: 'default', fellBack: false });
    expect(resolveDatabaseLabel('nope', dbs)).toEqual({ label: 'default', fellBack: true });
    expect(resolveDatabaseLabel('nope', [dbs[1]!])).toEqual({ label: undefined, fellBack: false });
    const env = buildAlgorithmEnv({
      resultId: 1,
      requested: [{ label: 'nope' }],
      databases: dbs,
      proxyHost: 'h',
      proxyPort: 1,
      algorithmEnv: {},
    });
    expect(env.DATABASE_URI).toBe('/mnt/data/patients.csv');
    expect(env.USER_REQUESTED_DATABASE_LABEL).toBe('default');
  });

  it("gives a vantage6 4.x algorithm every requested label in order, with the task's parameters", () => {
    const env = buildAlgorithmEnv({
      resultId: 7,
      requested: [
        { label: 'pg', parameters: { query: 'select * from t', preprocessing: [{ f: 'x' }] } },
        { label: 'default', type: 'csv', parameters: { sheet_name: 'S1', other: 'ignored' } },
      ],
      databases: dbs,
      proxyHost: 'h',
      proxyPort: 1,
      algorithmEnv: {},
    });
    expect(env.USER_REQUESTED_DATABASE_LABELS).toBe('pg,default');
    expect(env.PG_DATABASE_URI).toBe('postgresql://db/x');
    expect(env.PG_QUERY).toBe('select * from t');
    expect(env.PG_PREPROCESSING).toBe('[{"f":"x"}]');
    expect(env.DEFAULT_SHEET_NAME).toBe('S1');
    expect(env.DEFAULT_OTHER).toBeUndefined();
    expect(env.TEMPORARY_FOLDER).toBe('/mnt/tmp');
    expect(env.TOKEN_FILE).toBe('/mnt/data/task-000000007/token');
  });

  it("never lets a task's parameters replace the node's own variables", () => {
    const env = buildAlgorithmEnv({
      resultId: 7,
      requested: [{ label: 'default', parameters: { query: 'q' } }],
      databases: [{ label: 'default', uri: '/srv/a.csv', type: 'csv', isFile: true }],
      proxyHost: 'h',
      proxyPort: 1,
      algorithmEnv: {},
    });
    // A node label `input` would give INPUT_QUERY, never INPUT_FILE; the file variables are set last.
    expect(env.INPUT_FILE).toBe('/mnt/data/task-000000007/input');
    expect(env.DEFAULT_QUERY).toBe('q');
  });

  it('serves a label the node lacks with default, and says so; without default the run is refused', () => {
    const served = resolveDatabases([{ label: 'pg' }, { label: 'other' }], dbs);
    expect(served.map((s) => s.label)).toEqual(['pg', 'default']);
    expect(served.filter((s) => s.fellBack).map(fallbackNote)).toEqual([
      "this node has no database labelled 'other': the algorithm reads the 'default' database instead",
    ]);
    expect(missingDatabases(served)).toBeUndefined();
    const env = buildAlgorithmEnv({
      resultId: 1,
      requested: [{ label: 'pg' }, { label: 'other' }],
      databases: dbs,
      proxyHost: 'h',
      proxyPort: 1,
      algorithmEnv: {},
    });
    expect(env.USER_REQUESTED_DATABASE_LABELS).toBe('pg,default');

    const noDefault = resolveDatabases([{ label: 'other' }], [dbs[1]!]);
    expect(missingDatabases(noDefault)).toBe(
      "this node has no database labelled 'other' and no 'default' database to use instead",
    );
    // Asking for `default` on a node without databases runs without any, as in 3.x.
    expect(missingDatabases(resolveDatabases([{ label: 'default' }], []))).toBeUndefined();
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
