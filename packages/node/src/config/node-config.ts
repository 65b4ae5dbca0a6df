/** The node configuration as the daemon uses it: one environment of a YAML file, validated, with defaults applied,
 * paths resolved and the legacy spellings (`docker_services`, `allowed_images`, map-form `databases`) folded in. */
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import {
  ConfigError,
  DEFAULT_DOCKER_PREFIX,
  NODE_CONTAINER_PATHS,
  instanceName,
  readEnvironment,
  validateConfig,
  type TracingConfig,
} from '@federa/common';

import { normaliseMetrics, type NodeMetricsConfig } from './metrics-config.js';
import { normaliseOutputPolicy, type OutputPolicy } from './output-policy.js';
import { normaliseRuntime, type RuntimeConfig } from './runtime-config.js';
import { NodeConfigSchema, type DatabaseType, type RawNodeConfig } from './schema.js';
import { parseImagePattern } from '../runs/image-policy.js';

export const DEFAULT_ENVIRONMENT = 'application';
export const DEFAULT_PROXY_PORT = 8080;
export { DEFAULT_DOCKER_PREFIX } from '@federa/common';

/** Fixed places inside the node container when the node runs in Docker (`--dockerized`, docs/node.md#running-in-docker---dockerized). */
export const DOCKERIZED_PATHS = NODE_CONTAINER_PATHS;

export interface DatabaseConfig {
  readonly label: string;
  /** As configured for non-file databases; the absolute host path for file databases. */
  readonly uri: string;
  readonly type: DatabaseType | undefined;
  /** A file on this host: copied into the node's data volume at start. */
  readonly isFile: boolean;
}

export interface RegistryConfig {
  readonly registry: string;
  readonly username: string;
  readonly password: string;
}

export interface NodeConfig {
  readonly file: string;
  readonly environment: string;
  /** Instance name: `-n` or the file stem. Used in the names of Docker objects. */
  readonly name: string;
  readonly apiKey: string;
  /** `<server_url>[:<port>]`, the socket.io endpoint. */
  readonly serverBase: string;
  readonly apiPath: string;
  /** `<server_url>[:<port>]<api_path>`, the REST base. */
  readonly apiBase: string;
  readonly databases: readonly DatabaseConfig[];
  readonly encryption: { readonly enabled: boolean; readonly privateKeyPath: string };
  readonly algorithmEnv: Readonly<Record<string, string>>;
  /** alias → existing container name, attached to the private network. */
  readonly containerServices: Readonly<Record<string, string>>;
  readonly vpnSubnet: string | undefined;
  /** Image regexes (prefix match); undefined = every image allowed. */
  readonly allowedAlgorithms: readonly string[] | undefined;
  readonly allowedUsers: readonly number[] | undefined;
  readonly allowedOrganizations: readonly (number | string)[] | undefined;
  /** What may leave the node (docs/output-control.md); undefined = every output leaves as written. */
  readonly outputPolicy: OutputPolicy | undefined;
  /** Store API URLs whose approval an image needs (docs/store.md#node-administrators); undefined: none. */
  readonly allowedAlgorithmStores: readonly string[] | undefined;
  readonly allowEitherWhitelistOrStore: boolean;
  /** Function (method) names a run may ask for; undefined: any. */
  readonly allowedFunctions: readonly string[] | undefined;
  /** `policies.share_column_names`: the header of each file database is sent to the server (names only). */
  readonly shareColumnNames: boolean;
  /** `air_gapped`: no registry is asked; a run's image must already be on the node. */
  readonly airGapped: boolean;
  readonly registries: readonly RegistryConfig[];
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error' | 'fatal';
  readonly logFile: string | undefined;
  readonly dataDir: string;
  /** The audit log's folder (docs/audit.md): `<data dir>/audit`; in Docker the host's, mounted at /mnt/audit. */
  readonly auditDir: string;
  /** Results held for the data officer (docs/output-control.md): `<data dir>/review`; in Docker the host's, at /mnt/review. */
  readonly reviewDir: string;
  readonly logDir: string;
  readonly proxyPort: number;
  /** Where Prometheus scrapes the node (docs/observability.md); undefined: no metrics endpoint. */
  readonly metrics: NodeMetricsConfig | undefined;
  /** Where the node's spans go (docs/observability.md#traces); undefined: no tracing. */
  readonly tracing: TracingConfig | undefined;
  /** Host part of `HOST` for algorithms (env PROXY_SERVER_HOST); undefined = the private network's gateway. */
  readonly proxyHost: string | undefined;
  readonly dockerPrefix: string;
  readonly shareConfig: boolean;
  /**
   * Whether the runs' logs go to the server (live while a run is active, and in its report); when false they stay
   * in `<data dir>/run-logs` and the node admin reads them with `vnode logs` (docs/run-logs.md).
   * @default true
   */
  readonly shareLogs: boolean;
  /**
   * Outputs of at least this many bytes go to the server as a stream, into its result store; smaller ones inline in
   * the report, as 3.x (docs/large-results.md).
   * @default 16 MiB
   */
  readonly largeResultBytes: number;
  readonly gpu: boolean;
  /** The container engine of the algorithms (`container_runtime`, `podman_socket`). */
  readonly runtime: RuntimeConfig;
  /** Keys accepted for compatibility but without effect in Federa (logged at start). */
  readonly ignoredKeys: readonly string[];
  /**
   * Running inside the node container started by `vnode start`: data in the data volume mounted at /mnt/data,
   * logs in /mnt/log, the proxy reached by algorithms as `proxyserver` on the private network.
   */
  readonly dockerized: boolean;
  /** Name of the data volume (env DATA_VOLUME_NAME when dockerized); undefined = `<prefix>-<name>-vol`. */
  readonly dataVolumeName: string | undefined;
}

export interface LoadNodeConfigOptions {
  readonly file: string;
  /**
   * The environment of the file to use.
   * @default DEFAULT_ENVIRONMENT ('application')
   */
  readonly environment?: string;
  readonly name?: string;
  /**
   * Process environment (PRIVATE_KEY, PROXY_SERVER_HOST, PROXY_SERVER_PORT, XDG_*; when dockerized also
   * DATA_VOLUME_NAME and `<LABEL>_DATABASE_URI`).
   * @default {} (none)
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Inside the node container (`vnode-local start --dockerized`).
   * @default false
   */
  readonly dockerized?: boolean;
}

const FILE_TYPES: ReadonlySet<DatabaseType> = new Set(['csv', 'parquet', 'excel']);

const LEVELS: Record<string, NodeConfig['logLevel']> = {
  debug: 'debug',
  info: 'info',
  warning: 'warn',
  warn: 'warn',
  error: 'error',
  critical: 'fatal',
};

const isFilePath = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** Reads, validates and normalises one environment of a node configuration file. */
export function loadNodeConfig(options: LoadNodeConfigOptions): NodeConfig {
  const file = resolve(options.file);
  const environment = options.environment ?? DEFAULT_ENVIRONMENT;
  const env = options.env ?? {};
  const raw = validateConfig(NodeConfigSchema, readEnvironment(file, environment), file);
  return normalise(raw, {
    file,
    environment,
    name: options.name ?? instanceName(file),
    env,
    dockerized: options.dockerized ?? false,
  });
}

/** The normalisation step on its own (tests, and callers holding a parsed object). */
export function normaliseNodeConfig(
  raw: unknown,
  where: {
    file: string;
    environment?: string;
    name: string;
    env?: Readonly<Record<string, string | undefined>>;
    dockerized?: boolean;
  },
): NodeConfig {
  const file = resolve(where.file);
  const valid = validateConfig(NodeConfigSchema, raw, file);
  return normalise(valid, {
    file,
    environment: where.environment ?? DEFAULT_ENVIRONMENT,
    name: where.name,
    env: where.env ?? {},
    dockerized: where.dockerized ?? false,
  });
}

function normalise(
  raw: RawNodeConfig,
  where: {
    file: string;
    environment: string;
    name: string;
    env: Readonly<Record<string, string | undefined>>;
    dockerized: boolean;
  },
): NodeConfig {
  const { file, environment, name, env, dockerized } = where;
  if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(name)) {
    throw new ConfigError(
      file,
      `the node name '${name}' may contain only letters, digits, '_', '.' and '-' (it is used in container names)`,
    );
  }
  const configDir = dirname(file);
  const here = (p: string): string => (isAbsolute(p) ? p : resolve(configDir, expandHome(p)));

  const serverUrl = raw.server_url.replace(/\/$/, '');
  const port = raw.port === null || raw.port === undefined || raw.port === '' ? undefined : Number(raw.port);
  const serverBase = port === undefined ? serverUrl : `${serverUrl}:${port}`;
  const apiPath = (raw.api_path ?? '/api').replace(/\/$/, '');

  // In Docker the folders are fixed mounts; `directories` names host folders (used by `vnode start`).
  const dataDir = dockerized
    ? DOCKERIZED_PATHS.data
    : here(
        raw.directories?.data ??
          raw.task_dir ??
          join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'federa', 'node', name),
      );
  const logDir = dockerized
    ? DOCKERIZED_PATHS.log
    : here(
        raw.directories?.log ??
          join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'federa', 'log', 'node'),
      );

  const databases = normaliseDatabases(raw, file, here, dockerized ? env : undefined);

  const enabled = raw.encryption?.enabled ?? false;
  // In Docker, `encryption.private_key` is a host path: `vnode start` mounts that file and sets PRIVATE_KEY.
  const keySetting = env.PRIVATE_KEY || (dockerized ? undefined : (raw.encryption?.private_key ?? undefined));
  const privateKeyPath = keySetting
    ? isAbsolute(keySetting)
      ? keySetting
      : resolve(dataDir, expandHome(keySetting))
    : join(dataDir, 'private_key.pem');

  const algorithmEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw.algorithm_env ?? {})) algorithmEnv[k] = String(v);

  const containerServices = { ...(raw.docker_services ?? {}), ...(raw.container_services ?? {}) };

  const policyAlgorithms = raw.policies?.allowed_algorithms;
  const allowedAlgorithms =
    policyAlgorithms !== undefined && policyAlgorithms !== null
      ? typeof policyAlgorithms === 'string'
        ? [policyAlgorithms]
        : policyAlgorithms
      : raw.allowed_images && raw.allowed_images.length > 0
        ? raw.allowed_images
        : undefined;
  for (const [i, pattern] of (allowedAlgorithms ?? []).entries()) {
    const parsed = parseImagePattern(pattern);
    if (typeof parsed === 'string')
      throw new ConfigError(
        file,
        `the image pattern ${JSON.stringify(pattern)} ${parsed} (docs/node.md#image-policies)`,
        policyAlgorithms ? `policies.allowed_algorithms.${i}` : `allowed_images.${i}`,
      );
  }

  const envPort = env.PROXY_SERVER_PORT;
  if (envPort !== undefined && !/^[0-9]+$/.test(envPort)) {
    throw new ConfigError(
      file,
      `the environment variable PROXY_SERVER_PORT must be a port number, got ${JSON.stringify(envPort)}`,
    );
  }
  const proxyPort = envPort !== undefined ? Number(envPort) : (raw.proxy_port ?? DEFAULT_PROXY_PORT);

  const ignoredKeys = (['ssh-tunnels', 'whitelist', 'alpine', 'image', 'images', 'debug'] as const).filter(
    (k) => raw[k] !== undefined && raw[k] !== null,
  );
  const level = (raw.logging?.level ?? 'INFO').toLowerCase();

  return {
    file,
    environment,
    name,
    apiKey: raw.api_key,
    serverBase,
    apiPath,
    apiBase: `${serverBase}${apiPath}`,
    databases,
    encryption: { enabled, privateKeyPath },
    algorithmEnv,
    containerServices,
    vpnSubnet: raw.vpn_subnet ?? undefined,
    allowedAlgorithms,
    allowedUsers: raw.policies?.allowed_users ?? undefined,
    allowedOrganizations: raw.policies?.allowed_organizations ?? undefined,
    outputPolicy: normaliseOutputPolicy(raw.policies?.output, file),
    allowedAlgorithmStores: storeList(raw.policies?.allowed_algorithm_stores),
    allowEitherWhitelistOrStore: raw.policies?.allow_either_whitelist_or_store ?? false,
    allowedFunctions: raw.policies?.allowed_functions ?? undefined,
    shareColumnNames: raw.policies?.share_column_names ?? true,
    registries: raw.docker_registries ?? [],
    airGapped: raw.air_gapped ?? false,
    logLevel: LEVELS[level] ?? 'info',
    logFile: raw.logging?.file ? join(logDir, raw.logging.file) : undefined,
    dataDir,
    auditDir: dockerized ? DOCKERIZED_PATHS.audit : join(dataDir, 'audit'),
    reviewDir: dockerized ? DOCKERIZED_PATHS.review : join(dataDir, 'review'),
    logDir,
    proxyPort,
    metrics: normaliseMetrics(raw.metrics),
    tracing: raw.tracing,
    proxyHost: env.PROXY_SERVER_HOST || undefined,
    dockerPrefix: raw.docker_prefix ?? DEFAULT_DOCKER_PREFIX,
    shareConfig: raw.share_config ?? true,
    shareLogs: raw.share_logs ?? true,
    largeResultBytes: Math.floor((raw.large_result_mb ?? 16) * 1024 * 1024),
    gpu: raw.algorithm_device_requests?.gpu ?? false,
    runtime: normaliseRuntime(raw, file, env),
    ignoredKeys,
    dockerized,
    dataVolumeName: dockerized ? env.DATA_VOLUME_NAME || undefined : undefined,
  };
}

/** The URI `vnode start` gives a database in the node container: `<LABEL>_DATABASE_URI`, relative = under /mnt. */
function dockerizedUri(label: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const value = env[`${label.toUpperCase()}_DATABASE_URI`];
  if (value === undefined || value === '') return undefined;
  const looksLikeUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(value);
  return looksLikeUrl || isAbsolute(value) ? value : join(DOCKERIZED_PATHS.mounts, value);
}

function normaliseDatabases(
  raw: RawNodeConfig,
  file: string,
  here: (p: string) => string,
  /** Set when dockerized: `<LABEL>_DATABASE_URI` from it replaces the configured URI. */
  dockerEnv?: Readonly<Record<string, string | undefined>>,
): DatabaseConfig[] {
  const items: { label: string; uri: string; type: DatabaseType | undefined; key: string }[] = [];
  if (Array.isArray(raw.databases)) {
    raw.databases.forEach((d, i) =>
      items.push({ label: d.label, uri: d.uri, type: d.type, key: `databases.${i}` }),
    );
  } else if (raw.databases) {
    for (const [label, uri] of Object.entries(raw.databases))
      items.push({ label, uri, type: undefined, key: `databases.${label}` });
  }
  const seenLabels = new Set<string>();
  const seenFiles = new Map<string, string>();
  const out: DatabaseConfig[] = [];
  for (let item of items) {
    if (seenLabels.has(item.label))
      throw new ConfigError(file, `the label '${item.label}' is used twice`, item.key);
    seenLabels.add(item.label);
    const uri = (dockerEnv && dockerizedUri(item.label, dockerEnv)) ?? item.uri;
    item = { ...item, uri };
    const candidate = here(item.uri);
    const fileType = item.type !== undefined && FILE_TYPES.has(item.type);
    const looksLikeUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(item.uri);
    const isFile = !looksLikeUrl && isFilePath(candidate);
    if (fileType && !isFile) {
      throw new ConfigError(
        file,
        `a ${item.type} database must be a file on this host; '${item.uri}' is not (looked at ${candidate})`,
        item.key,
      );
    }
    if (isFile) {
      const base = basename(candidate);
      const other = seenFiles.get(base);
      if (other !== undefined) {
        throw new ConfigError(
          file,
          `file databases are copied into the data volume by file name; '${base}' is also the file of '${other}'`,
          item.key,
        );
      }
      seenFiles.set(base, item.label);
    }
    out.push({ label: item.label, uri: isFile ? candidate : item.uri, type: item.type, isFile });
  }
  return out;
}

function expandHome(p: string): string {
  return p === '~' ? homedir() : p.startsWith('~/') ? join(homedir(), p.slice(2)) : p;
}

/** `allowed_algorithm_stores`: one URL or a list. */
function storeList(value: string | string[] | null | undefined): readonly string[] | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? [value] : value;
}
