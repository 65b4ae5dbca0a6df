/** `vserver new`: the wizard that writes a server configuration (docs/cli.md#vserver-new). */
import { randomBytes } from 'node:crypto';
import type { Env, Scope } from '../paths.js';
import { writeEnvironment } from '../config/store.js';
import type { Asker } from '../util/asker.js';
import { askNameAndEnvironment, nonEmpty } from '../config/new-config.js';

export interface ServerNewOptions {
  name?: string;
  environment?: string;
  scope: Scope;
  description?: string;
  ip?: string;
  port?: string;
  apiPath?: string;
  dbUri?: string;
  allowDropAll?: boolean;
  jwtSecret?: string;
  rootEmail?: string;
  rootUsername?: string;
  rootPassword?: string;
  logLevel?: string;
  image?: string;
  vpnHost?: string;
  vpnPort?: string;
  vpnSubnet?: string;
}

const LOG_LEVELS = ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const;

/** Asks what is not given and writes the environment; returns the file written. */
export async function newServerConfig(
  options: ServerNewOptions,
  asker: Asker,
  env: Env = process.env,
): Promise<{ file: string; name: string; environment: string; values: Record<string, unknown> }> {
  const { name, environment, file } = await askNameAndEnvironment('server', options, asker, 'prod', env);

  const description = await asker.text(options.description, {
    message: 'Description',
    flag: '--description',
    default: '',
  });
  const ip = await asker.text(options.ip, {
    message: 'IP address the server listens on',
    flag: '--ip',
    default: '0.0.0.0',
    validate: nonEmpty,
  });
  const port = await asker.integer(options.port, {
    message: 'Port (on this host)',
    flag: '--port',
    default: 5000,
    validate: (p) => (p > 0 && p < 65536 ? true : 'expected a port between 1 and 65535'),
  });
  const apiPath = await asker.text(options.apiPath, {
    message: 'API path',
    flag: '--api-path',
    default: '/api',
    validate: (p) => (/^(\/[A-Za-z0-9_.~-]+)*$/.test(p) ? true : "expected a path such as '/api' (or empty)"),
  });
  const uri = await asker.text(options.dbUri, {
    message: 'Database URI (sqlite:///<file> is relative to the data folder; postgresql://user:pw@host/db)',
    flag: '--db-uri',
    default: 'sqlite:///default.sqlite',
    validate: (u) =>
      /^(sqlite|postgres(ql)?):\/\//.test(u) ? true : 'expected sqlite:///… or postgresql://…',
  });
  const allowDropAll = await asker.confirm(options.allowDropAll, {
    message: 'Allow dropping all tables (tests only)?',
    flag: '--allow-drop-all',
    default: false,
  });
  const jwtSecret = await asker.text(options.jwtSecret, {
    message: 'JWT secret (empty: generate one; tokens then survive a restart)',
    flag: '--jwt-secret',
    default: '',
    validate: (s) =>
      s === '' || s.length >= 16 ? true : 'expected at least 16 characters, or empty to generate one',
  });
  const rootEmail = await asker.text(options.rootEmail, {
    message: 'E-mail address of the root user',
    flag: '--root-email',
    validate: (e) => (/^[^@\s]+@[^@\s]+$/.test(e) ? true : 'expected an e-mail address'),
  });
  const rootUsername = await asker.text(options.rootUsername, {
    message: 'Username of the root user',
    flag: '--root-username',
    default: 'root',
    validate: nonEmpty,
  });
  const rootPassword = await asker.secret(options.rootPassword, {
    message: 'Password of the root user (empty: generated and printed in the server log at first start)',
    flag: '--root-password',
    default: '',
    validate: (p) => (p === '' || p.length >= 8 ? true : 'expected at least 8 characters'),
  });
  const level = await asker.choose(options.logLevel?.toUpperCase(), {
    message: 'Log level',
    flag: '--log-level',
    choices: LOG_LEVELS,
    default: 'INFO',
  });

  // The VPN between algorithms (docs/vpn.md): only when an address for it is given.
  const vpnHost = await asker.text(options.vpnHost, {
    message: "VPN between algorithms: the address nodes' VPN clients connect to (empty: no VPN)",
    flag: '--vpn-host',
    default: '',
  });
  let vpn: Record<string, unknown> | undefined;
  if (vpnHost) {
    const vpnPort = await asker.integer(options.vpnPort, {
      message: 'VPN port (udp)',
      flag: '--vpn-port',
      default: 1194,
      validate: (n) => (n >= 1 && n <= 65535 ? true : 'expected a port between 1 and 65535'),
    });
    const vpnSubnet = await asker.text(options.vpnSubnet, {
      message: 'VPN subnet (nodes set the same vpn_subnet)',
      flag: '--vpn-subnet',
      default: '10.76.0.0/16',
      validate: (v) =>
        /^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(v) ? true : 'expected a subnet like 10.76.0.0/16',
    });
    vpn = { host: vpnHost, port: vpnPort, subnet: vpnSubnet };
  }

  const values: Record<string, unknown> = {
    ...(description ? { description } : {}),
    ip,
    port,
    api_path: apiPath,
    uri,
    allow_drop_all: allowDropAll,
    jwt_secret_key: jwtSecret || randomBytes(32).toString('hex'),
    root_user: {
      username: rootUsername,
      email: rootEmail,
      ...(rootPassword ? { password: rootPassword } : {}),
    },
    logging: { level, use_console: true },
    ...(options.image ? { image: options.image } : {}),
    ...(vpn ? { vpn } : {}),
  };
  writeEnvironment(file, environment, values);
  return { file, name, environment, values };
}
