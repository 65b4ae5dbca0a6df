/** `vnode new`: the wizard that writes a node configuration (docs/cli.md#vnode-new). */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError } from '../exit-codes.js';
import type { Env, Scope } from '../paths.js';
import { writeEnvironment } from '../config/store.js';
import type { Asker } from '../util/asker.js';
import { askNameAndEnvironment, nonEmpty } from '../config/new-config.js';

export const DATABASE_TYPES = ['csv', 'parquet', 'sql', 'sparql', 'omop', 'excel', 'other'] as const;
export type DatabaseType = (typeof DATABASE_TYPES)[number];

export interface DataSource {
  label: string;
  uri: string;
  type: DatabaseType;
}

export interface NodeNewOptions {
  name?: string;
  environment?: string;
  scope: Scope;
  apiKey?: string;
  serverUrl?: string;
  port?: string;
  apiPath?: string;
  /** `LABEL[:TYPE]=URI` items (`--database`, repeatable). */
  database?: string[];
  logLevel?: string;
  vpnSubnet?: string;
  encryption?: boolean;
  privateKey?: string;
  image?: string;
  /** `container_runtime`: docker (default, not written) or podman. */
  runtime?: string;
}

const LABEL = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LOG_LEVELS = ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const;
const labelCheck = (s: string): true | string =>
  LABEL.test(s) ? true : 'letters, digits and _ only, not starting with a digit';
const CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

/** Parses `LABEL[:TYPE]=URI`. */
export function parseDataSource(text: string): DataSource {
  const m = /^([^=:]+)(?::([^=]+))?=(.+)$/.exec(text);
  if (!m) throw new CliError('usage', `--database: expected LABEL[:TYPE]=URI, got '${text}'`);
  const label = m[1] as string;
  const type = (m[2] ?? guessType(m[3] as string)) as DatabaseType;
  if (labelCheck(label) !== true)
    throw new CliError('usage', `--database: the label '${label}' may hold letters, digits and _ only`);
  if (!(DATABASE_TYPES as readonly string[]).includes(type)) {
    throw new CliError('usage', `--database: the type '${type}' is not one of ${DATABASE_TYPES.join(', ')}`);
  }
  return { label, uri: m[3] as string, type };
}

const isUri = (s: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(s);

/**
 * A data source's path made absolute (against the working directory, where the admin typed it), so that it means
 * the same file wherever the configuration is read from; a URI stays as it is. Undefined with a message when the
 * file does not exist.
 */
export function absoluteSource(
  uri: string,
  cwd: string = process.cwd(),
): { uri: string } | { error: string } {
  if (isUri(uri)) return { uri };
  const path = resolve(cwd, uri);
  return existsSync(path)
    ? { uri: path }
    : { error: `no file at ${path}: give an existing file, or a URI such as postgresql://host/db` };
}

export function guessType(uri: string): DatabaseType {
  const lower = uri.toLowerCase();
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.parquet')) return 'parquet';
  if (lower.endsWith('.xlsx') || lower.endsWith('.xls')) return 'excel';
  if (/^(postgres(ql)?|mysql|mssql|sqlite|oracle)/.test(lower)) return 'sql';
  if (/sparql/.test(lower)) return 'sparql';
  return 'other';
}

export function checkSubnet(s: string): true | string {
  const m = CIDR.exec(s);
  if (!m || [1, 2, 3, 4].some((i) => Number(m[i]) > 255) || Number(m[5]) > 32)
    return 'expected an IPv4 subnet such as 10.76.0.0/16';
  return true;
}

export async function newNodeConfig(
  options: NodeNewOptions,
  asker: Asker,
  env: Env = process.env,
): Promise<{ file: string; name: string; environment: string; values: Record<string, unknown> }> {
  const sourceCheck = (s: string): true | string => {
    if (nonEmpty(s) !== true) return nonEmpty(s);
    const checked = absoluteSource(s);
    return 'error' in checked ? checked.error : true;
  };
  if (options.runtime !== undefined && options.runtime !== 'docker' && options.runtime !== 'podman')
    throw new CliError('usage', `--runtime must be docker or podman, not '${options.runtime}'`);
  const { name, environment, file } = await askNameAndEnvironment('node', options, asker, 'application', env);

  const apiKey = await asker.text(options.apiKey, {
    message: 'API key of the node (from the server, POST /node)',
    flag: '--api-key',
    validate: nonEmpty,
  });
  const serverUrl = await asker.text(options.serverUrl, {
    message: 'Server URL (scheme and host; from inside Docker, http://host.docker.internal is this machine)',
    flag: '--server-url',
    default: 'http://host.docker.internal',
    validate: (u) =>
      /^https?:\/\/[^/]+\/?$/.test(u) ? true : 'expected http(s)://host without port or path',
  });
  const port = await asker.integer(options.port, {
    message: 'Server port',
    flag: '--port',
    default: 5000,
    validate: (p) => (p > 0 && p < 65536 ? true : 'expected a port between 1 and 65535'),
  });
  const apiPath = await asker.text(options.apiPath, {
    message: 'API path of the server',
    flag: '--api-path',
    default: '/api',
    validate: (p) => (p === '' || p.startsWith('/') ? true : "expected a path such as '/api' (or empty)"),
  });

  const databases: DataSource[] = [];
  if (options.database !== undefined) {
    databases.push(...options.database.map(parseDataSource));
  } else if (asker.interactive) {
    const uri = await asker.text(undefined, {
      message: "Path or URI of the 'default' data source",
      flag: '--database',
      validate: sourceCheck,
    });
    const type = await asker.choose(undefined, {
      message: 'Type of that data source',
      flag: '--database',
      choices: DATABASE_TYPES,
      default: guessType(uri),
    });
    databases.push({ label: 'default', uri, type });
    while (
      await asker.confirm(undefined, {
        message: 'Add another data source?',
        flag: '--database',
        default: false,
      })
    ) {
      const label = await asker.text(undefined, {
        message: 'Label of the data source',
        flag: '--database',
        validate: (s) =>
          databases.some((d) => d.label === s) ? 'that label is used already' : labelCheck(s),
      });
      const more = await asker.text(undefined, {
        message: `Path or URI of '${label}'`,
        flag: '--database',
        validate: sourceCheck,
      });
      const moreType = await asker.choose(undefined, {
        message: `Type of '${label}'`,
        flag: '--database',
        choices: DATABASE_TYPES,
        default: guessType(more),
      });
      databases.push({ label, uri: more, type: moreType });
    }
  }
  const labels = new Set<string>();
  for (const d of databases) {
    if (labels.has(d.label)) throw new CliError('usage', `--database: the label '${d.label}' is given twice`);
    labels.add(d.label);
    const checked = absoluteSource(d.uri);
    if ('error' in checked) throw new CliError('usage', `--database ${d.label}: ${checked.error}`);
    d.uri = checked.uri;
  }

  const level = await asker.choose(options.logLevel?.toUpperCase(), {
    message: 'Log level',
    flag: '--log-level',
    choices: LOG_LEVELS,
    default: 'INFO',
  });
  const vpnSubnet = await asker.text(options.vpnSubnet, {
    message: 'VPN subnet (empty: no VPN; e.g. 10.76.0.0/16)',
    flag: '--vpn-subnet',
    default: '',
    validate: (s) => (s === '' ? true : checkSubnet(s)),
  });
  const encryption = await asker.confirm(options.encryption, {
    message: 'Is the collaboration encrypted?',
    flag: '--encryption/--no-encryption',
    default: false,
  });
  const privateKey = encryption
    ? await asker.text(options.privateKey, {
        message:
          "Path of the organization's private key (empty: generate one with 'vnode create-private-key')",
        flag: '--private-key',
        default: '',
      })
    : (options.privateKey ?? '');

  const values: Record<string, unknown> = {
    api_key: apiKey,
    server_url: serverUrl.replace(/\/$/, ''),
    port,
    api_path: apiPath,
    databases: databases.map((d) => ({ label: d.label, uri: d.uri, type: d.type })),
    logging: { level, use_console: true },
    encryption: { enabled: encryption, ...(privateKey ? { private_key: resolve(privateKey) } : {}) },
    ...(vpnSubnet ? { vpn_subnet: vpnSubnet } : {}),
    ...(options.image ? { image: options.image } : {}),
    ...(options.runtime === 'podman' ? { container_runtime: 'podman' } : {}),
  };
  writeEnvironment(file, environment, values);
  return { file, name, environment, values };
}
