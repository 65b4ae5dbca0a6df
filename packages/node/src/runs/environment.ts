/**
 * The environment of an algorithm container (docs/container-environment.md#environment-variables): the full 3.11
 * superset, and what vantage6 4.x's algorithm tools read besides (`USER_REQUESTED_DATABASE_LABELS`, the task's
 * database parameters).
 */
import { basename } from 'node:path';

import type { TaskDatabase } from '@federa/common';
import type { DatabaseConfig } from '../config/node-config.js';
import { CONTAINER_DATA_DIR, CONTAINER_TMP_DIR, containerRunFiles } from './naming.js';

export interface AlgorithmEnvInput {
  readonly resultId: number;
  /** The databases the task asks for, in order ({@link requestedDatabases}); each resolved by {@link resolveDatabases}. */
  readonly requested: readonly TaskDatabase[];
  readonly databases: readonly DatabaseConfig[];
  /** Host part of the proxy address as algorithms reach it (`host.docker.internal`, a gateway address). */
  readonly proxyHost: string;
  readonly proxyPort: number;
  /** The proxy's path for this algorithm: `/v4` for a task made on the 4.x surface; default `''` (3.x). */
  readonly apiPath?: string;
  readonly algorithmEnv: Readonly<Record<string, string>>;
}

export interface ResolvedDatabase {
  /** The label that will be used, or undefined when neither the requested label nor `default` exists. */
  readonly label: string | undefined;
  /** True when the requested label was not configured and `default` was used instead. */
  readonly fellBack: boolean;
}

/** Which data source a task gets: its `database` label, `default` when empty or unknown (seed). */
export function resolveDatabaseLabel(
  requested: string | null | undefined,
  databases: readonly DatabaseConfig[],
): ResolvedDatabase {
  const wanted = requested && requested.trim() !== '' ? requested : 'default';
  if (databases.some((d) => d.label === wanted)) return { label: wanted, fellBack: false };
  if (databases.some((d) => d.label === 'default')) return { label: 'default', fellBack: true };
  return { label: undefined, fellBack: false };
}

/** One requested database as this node serves it. */
export interface ServedDatabase extends ResolvedDatabase {
  readonly requested: TaskDatabase;
}

/** Each requested database resolved as {@link resolveDatabaseLabel} resolves one. */
export const resolveDatabases = (
  requested: readonly TaskDatabase[],
  databases: readonly DatabaseConfig[],
): ServedDatabase[] => requested.map((r) => ({ requested: r, ...resolveDatabaseLabel(r.label, databases) }));

/**
 * Why a run must not start for its databases, or undefined: a label named explicitly that this node has not, with
 * no `default` to fall back to. (Asking for `default` on a node without databases runs without any, as in 3.x.)
 */
export function missingDatabases(served: readonly ServedDatabase[]): string | undefined {
  const missing = served.filter((s) => s.label === undefined && s.requested.label !== 'default');
  if (missing.length === 0) return undefined;
  return `this node has no database labelled ${missing.map((s) => `'${s.requested.label}'`).join(', ')} and no 'default' database to use instead`;
}

/** The run's log line for a database served by `default` instead of the one asked for. */
export const fallbackNote = (s: ServedDatabase): string =>
  `this node has no database labelled '${s.requested.label}': the algorithm reads the 'default' database instead`;

/** The URI an algorithm sees for a database: the copied file for file databases, the URI itself otherwise. */
export const containerDatabaseUri = (db: DatabaseConfig): string =>
  db.isFile ? `${CONTAINER_DATA_DIR}/${basename(db.uri)}` : db.uri;

/** The task's database parameters vantage6 4.x's algorithm tools read, as `<LABEL>_<NAME>`. */
const PARAMETER_NAMES = ['query', 'sheet_name', 'preprocessing'] as const;

const envText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

export function buildAlgorithmEnv(input: AlgorithmEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  const served = resolveDatabases(input.requested, input.databases).filter((s) => s.label !== undefined);
  // Parameters first: the node's own variables below are never overwritten by a task's.
  for (const s of served) {
    const parameters = s.requested.parameters ?? {};
    for (const name of PARAMETER_NAMES)
      if (parameters[name] !== undefined && parameters[name] !== null)
        env[`${String(s.label).toUpperCase()}_${name.toUpperCase()}`] = envText(parameters[name]);
  }
  const files = containerRunFiles(input.resultId);
  Object.assign(env, {
    INPUT_FILE: files.input,
    OUTPUT_FILE: files.output,
    TOKEN_FILE: files.token,
    TEMPORARY_FOLDER: CONTAINER_TMP_DIR,
    HOST: `http://${input.proxyHost}`,
    PORT: String(input.proxyPort),
    API_PATH: input.apiPath ?? '',
  });
  for (const db of input.databases) {
    const key = db.label.toUpperCase();
    env[`${key}_DATABASE_URI`] = containerDatabaseUri(db);
    if (db.type !== undefined) env[`${key}_DATABASE_TYPE`] = db.type;
  }
  const chosen = input.databases.find((d) => d.label === served[0]?.label);
  if (chosen) {
    // Legacy: always a path under /mnt/data, even for a non-file URI (3.x builds it that way).
    env.DATABASE_URI = `${CONTAINER_DATA_DIR}/${basename(chosen.uri)}`;
    env.USER_REQUESTED_DATABASE_LABEL = chosen.label;
  }
  // vantage6 4.x: the labels the algorithm reads, in the task's order, as this node serves them.
  if (served.length > 0) env.USER_REQUESTED_DATABASE_LABELS = served.map((s) => String(s.label)).join(',');
  env.DB_LABELS = JSON.stringify(input.databases.map((d) => d.label));
  for (const [k, v] of Object.entries(input.algorithmEnv)) env[k] = v;
  return env;
}
