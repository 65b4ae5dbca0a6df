/**
 * `vserver-local import`: opens the configured database (migrating and seeding it as a server start does, so an
 * import into a fresh database works), reads the fixture and imports it.
 */
import { mkdirSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { resolve } from 'node:path';
import { ConfigError } from '@federa/common';

import { loadServerConfig } from '../config/load.js';
import { bootstrap, type BootstrapOutcome } from '../db/bootstrap.js';
import { DatabaseHandle } from '../db/handle.js';
import { DatabaseUriError, parseDatabaseUri } from '../db/uri.js';
import { serverDataDir } from '../config/data-dir.js';
import { FixtureError, loadFixtureFile, withLine } from './fixture.js';
import { openFreeChain } from '../audit/server-audit.js';
import { importFixture, type ImportReport } from './import-fixture.js';

export interface RunImportOptions {
  readonly configFile: string;
  /** @default 'prod' */
  readonly environment?: string;
  readonly fixtureFile: string;
  /** The fixture's name in messages (`vserver import` passes the admin's file; default: fixtureFile). */
  readonly fixtureName?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export async function runImport(
  options: RunImportOptions,
): Promise<{ report: ImportReport; seeded: BootstrapOutcome }> {
  const env = options.env ?? process.env;
  const loaded = loadServerConfig(options.configFile, options.environment ?? 'prod', env);
  // The fixture is checked before the database is touched.
  const file = loadFixtureFile(options.fixtureFile, options.fixtureName ?? options.fixtureFile);
  const dataDir = serverDataDir(loaded, env);
  let target;
  try {
    target = parseDatabaseUri(loaded.config.uri, dataDir);
  } catch (error) {
    if (error instanceof DatabaseUriError) throw new ConfigError(loaded.file, error.message, 'uri');
    throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  // The import is recorded in the audit log like any change (docs/audit.md): no log, no import.
  const { audit } = loaded.config;
  const opened = audit.enabled
    ? await openFreeChain(resolve(dataDir, audit.directory ?? 'audit'), 'import', {
        maxFileBytes: audit.max_file_mb * 1024 * 1024,
        sync: audit.fsync,
      })
    : undefined;
  const dbh = new DatabaseHandle(target);
  try {
    await dbh.migrate();
    const seeded = await bootstrap(dbh.db, loaded.config);
    try {
      const report = await importFixture(dbh, loaded.config, file.fixture);
      await opened?.log
        .append('import.applied', {
          fixture: options.fixtureName ?? options.fixtureFile,
          created: report.created,
          already_there: report.skipped,
          host: hostname(),
          pid: process.pid,
          os_user: userInfo().username,
          ...(opened.cutOff !== undefined ? { cut_off_line: opened.cutOff } : {}),
        })
        .catch((error: unknown) => {
          throw new Error(
            `the import was applied, but its entry could not be written to the audit log ${opened.log.file}: ${(error as Error).message}; what it created: ${JSON.stringify(report.created)}`,
            { cause: error },
          );
        });
      return { report, seeded };
    } catch (error) {
      // A problem only the database reveals (a taken e-mail address, an unknown role): name the file and line too.
      if (error instanceof FixtureError) throw withLine(error, file.source, file.lineOf);
      throw error;
    }
  } finally {
    await dbh.close();
    await opened?.log.close();
  }
}
