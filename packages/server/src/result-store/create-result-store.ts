import { isAbsolute, resolve } from 'node:path';
import type { Kysely } from 'kysely';

import type { ServerConfig } from '../config/schema.js';
import type { Database } from '../db/schema.js';
import { DatabaseResultStore } from './database-store.js';
import { FolderResultStore } from './folder-store.js';
import type { ResultStore } from './result-store.js';

/** The store `result_store` configures (docs/configuration.md); a relative folder is under the data directory. */
export function createResultStore(
  config: ServerConfig['result_store'],
  dataDir: string,
  db: () => Kysely<Database>,
): ResultStore {
  if (config.type === 'database') return new DatabaseResultStore(db);
  const dir = config.directory ?? 'results';
  return new FolderResultStore(isAbsolute(dir) ? dir : resolve(dataDir, dir));
}
