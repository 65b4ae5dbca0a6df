/**
 * The environment of an algorithm container (docs/container-environment.md#environment-variables, the full 3.11 superset).
 */
import { basename } from 'node:path';

import type { DatabaseConfig } from '../config/node-config.js';
import { CONTAINER_DATA_DIR, CONTAINER_TMP_DIR, containerRunFiles } from './naming.js';

export interface AlgorithmEnvInput {
  readonly resultId: number;
  /** The task's `database`; empty/undefined → `default`; a label the node lacks → `default` (seed). */
  readonly requestedDatabase: string | null | undefined;
  readonly databases: readonly DatabaseConfig[];
  /** Host part of the proxy address as algorithms reach it (`host.docker.internal`, a gateway address). */
  readonly proxyHost: string;
  readonly proxyPort: number;
  readonly algorithmEnv: Readonly<Record<string, string>>;
}

export interface ResolvedDatabase {
  /** The label that will be used, or undefined when neither the requested label nor `default` exists. */
  readonly label: string | undefined;
  /** True when the requested label was not configured and `default` was used instead. */
  readonly fellBack: boolean;
}

/** Which data source a task gets: its `database` label, `default` when empty or unknown. */
export function resolveDatabaseLabel(
  requested: string | null | undefined,
  databases: readonly DatabaseConfig[],
): ResolvedDatabase {
  const wanted = requested && requested.trim() !== '' ? requested : 'default';
  if (databases.some((d) => d.label === wanted)) return { label: wanted, fellBack: false };
  if (databases.some((d) => d.label === 'default')) return { label: 'default', fellBack: true };
  return { label: undefined, fellBack: false };
}

/** The URI an algorithm sees for a database: the copied file for file databases, the URI itself otherwise. */
export const containerDatabaseUri = (db: DatabaseConfig): string =>
  db.isFile ? `${CONTAINER_DATA_DIR}/${basename(db.uri)}` : db.uri;

export function buildAlgorithmEnv(input: AlgorithmEnvInput): Record<string, string> {
  const files = containerRunFiles(input.resultId);
  const env: Record<string, string> = {
    INPUT_FILE: files.input,
    OUTPUT_FILE: files.output,
    TOKEN_FILE: files.token,
    TEMPORARY_FOLDER: CONTAINER_TMP_DIR,
    HOST: `http://${input.proxyHost}`,
    PORT: String(input.proxyPort),
    API_PATH: '',
  };
  for (const db of input.databases) {
    const key = db.label.toUpperCase();
    env[`${key}_DATABASE_URI`] = containerDatabaseUri(db);
    if (db.type !== undefined) env[`${key}_DATABASE_TYPE`] = db.type;
  }
  const { label } = resolveDatabaseLabel(input.requestedDatabase, input.databases);
  const chosen = input.databases.find((d) => d.label === label);
  if (chosen) {
    // Legacy: always a path under /mnt/data, even for a non-file URI (3.x builds it that way).
    env.DATABASE_URI = `${CONTAINER_DATA_DIR}/${basename(chosen.uri)}`;
    env.USER_REQUESTED_DATABASE_LABEL = chosen.label;
  }
  env.DB_LABELS = JSON.stringify(input.databases.map((d) => d.label));
  for (const [k, v] of Object.entries(input.algorithmEnv)) env[k] = v;
  return env;
}
