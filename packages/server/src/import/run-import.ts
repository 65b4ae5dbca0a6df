/**
 * `vserver-local import`: opens the configured database (migrating and seeding it as a server start does, so an
 * import into a fresh database works), reads the fixture and imports it.
 */
import { mkdirSync } from 'node:fs';
import { ConfigError } from '@federa/common';

import { loadServerConfig } from '../config/load.js';
import { bootstrap, type BootstrapOutcome } from '../db/bootstrap.js';
import { DatabaseHandle, DatabaseUriError, parseDatabaseUri } from '../db/connect.js';
import { serverDataDir } from '../server.js';
import { readFixtureFile } from './fixture.js';
import { importFixture, type ImportReport } from './import-fixture.js';

export interface RunImportOptions {
  readonly configFile: string;
  /** @default 'prod' */
  readonly environment?: string;
  readonly fixtureFile: string;
  readonly env?: NodeJS.ProcessEnv;
}

export async function runImport(
  options: RunImportOptions,
): Promise<{ report: ImportReport; seeded: BootstrapOutcome }> {
  const env = options.env ?? process.env;
  const loaded = loadServerConfig(options.configFile, options.environment ?? 'prod', env);
  // The fixture is checked before the database is touched.
  const fixture = readFixtureFile(options.fixtureFile);
  const dataDir = serverDataDir(loaded, env);
  let target;
  try {
    target = parseDatabaseUri(loaded.config.uri, dataDir);
  } catch (error) {
    if (error instanceof DatabaseUriError) throw new ConfigError(loaded.file, error.message, 'uri');
    throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const dbh = new DatabaseHandle(target);
  try {
    await dbh.migrate();
    const seeded = await bootstrap(dbh.db, loaded.config);
    const report = await importFixture(dbh.db, loaded.config, fixture);
    return { report, seeded };
  } finally {
    await dbh.close();
  }
}
