import { ConfigError, readEnvironment, validateConfig, instanceName, parseIpv4Subnet } from '@federa/common';
import { ServerConfigSchema, type ServerConfig } from './schema.js';

export interface LoadedServerConfig {
  config: ServerConfig;
  /** Instance name: the configuration file's stem. */
  name: string;
  file: string;
  environment: string;
}

/**
 * Environment variables that override the file (applied after reading it, before validation).
 * `VANTAGE6_DB_URI` is honoured for compatibility with vantage6's `vserver start`.
 */
export function applyEnvironmentOverrides(
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...raw };
  const uri = env.FEDERA_DB_URI ?? env.VANTAGE6_DB_URI;
  if (uri) out.uri = uri;
  if (env.FEDERA_JWT_SECRET) out.jwt_secret_key = env.FEDERA_JWT_SECRET;
  if (env.FEDERA_MESSAGE_BROKER) out.message_broker = env.FEDERA_MESSAGE_BROKER;
  // `vserver start` (Docker mode): the audit log goes to the host's data folder, mounted (docs/audit.md).
  if (env.FEDERA_AUDIT_DIRECTORY) {
    const audit =
      typeof out.audit === 'object' && out.audit !== null ? (out.audit as Record<string, unknown>) : {};
    out.audit = { ...audit, directory: env.FEDERA_AUDIT_DIRECTORY };
  }
  // `vserver start` (Docker mode): the VPN folder is shared with the federa/vpn-server container, which runs
  // OpenVPN (docs/vpn.md).
  if (
    (env.FEDERA_VPN_DIRECTORY || env.FEDERA_VPN_RUN_SERVER) &&
    typeof out.vpn === 'object' &&
    out.vpn !== null
  ) {
    const vpn = { ...(out.vpn as Record<string, unknown>) };
    if (env.FEDERA_VPN_DIRECTORY) vpn.directory = env.FEDERA_VPN_DIRECTORY;
    if (env.FEDERA_VPN_RUN_SERVER) vpn.run_server = env.FEDERA_VPN_RUN_SERVER === 'true';
    out.vpn = vpn;
  }
  if (env.FEDERA_ROOT_PASSWORD) {
    const root = (typeof out.root_user === 'object' && out.root_user !== null ? out.root_user : {}) as Record<
      string,
      unknown
    >;
    out.root_user = { ...root, password: env.FEDERA_ROOT_PASSWORD };
  }
  if (env.FEDERA_ROOT_EMAIL) {
    const root = (typeof out.root_user === 'object' && out.root_user !== null ? out.root_user : {}) as Record<
      string,
      unknown
    >;
    out.root_user = { ...root, email: env.FEDERA_ROOT_EMAIL };
  }
  return out;
}

/** Validates an already-read configuration mapping (used by tests and by {@link loadServerConfig}). */
export function parseServerConfig(
  raw: Record<string, unknown>,
  file: string,
  env: NodeJS.ProcessEnv = {},
): ServerConfig {
  const merged = applyEnvironmentOverrides(raw, env);
  if (merged.root_user === undefined || (merged.root_user as Record<string, unknown>).email === undefined) {
    throw new ConfigError(
      file,
      'is required: the root user needs an e-mail address (set root_user.email, or FEDERA_ROOT_EMAIL); the server does not start without it',
      'root_user.email',
    );
  }
  const config = validateConfig(ServerConfigSchema, merged, file);
  if (config.vpn) {
    try {
      parseIpv4Subnet(config.vpn.subnet);
    } catch (error) {
      throw new ConfigError(file, (error as Error).message, 'vpn.subnet');
    }
  }
  if (config.refresh_token_expires_hours <= config.token_expires_hours) {
    throw new ConfigError(file, 'must be larger than token_expires_hours', 'refresh_token_expires_hours');
  }
  return config;
}

/** Reads, overrides from the environment and validates one environment of a server configuration file. */
export function loadServerConfig(
  file: string,
  environment: string,
  env: NodeJS.ProcessEnv = process.env,
): LoadedServerConfig {
  const raw = readEnvironment(file, environment);
  return { config: parseServerConfig(raw, file, env), name: instanceName(file), file, environment };
}
