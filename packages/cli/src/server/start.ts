/** `vserver start`: runs the server image in Docker (docs/cli.md#vserver-start). */
import { existsSync, mkdirSync } from 'node:fs';
import { auditKeyPath, openAuditKey } from '@federa/common';
import { join, resolve } from 'node:path';
import { checkServerConfig } from '../config/validate.js';
import type { InstanceRef } from '../config/store.js';
import { connectDocker, type DockerEngine } from '../docker/engine.js';
import { chooseImage, ensureImage, warnOnMajorMismatch } from '../docker/images.js';
import { CliError } from '../exit-codes.js';
import { type Env, type Scope, instanceDataDir } from '../paths.js';
import type { Progress } from '../util/progress.js';
import { getJson, waitFor } from '../util/http.js';
import { readableLogStream } from '../util/log-lines.js';
import { CONTAINER_DB_DIR, placeDatabase } from './database.js';
import { CONTAINER_PORT, LABELS, TYPE_LABEL, serverContainerName, serverNetworkName } from './naming.js';

export interface ServerStartOptions {
  environment: string;
  ip?: string;
  port?: string;
  image?: string;
  attach?: boolean;
  keep?: boolean;
  /** Source checkout mounted over the application in the container (`--develop`, alias `--mount-src`). */
  develop?: string;
  /** Seconds to wait for the server to answer; 0 = do not wait. */
  wait?: number;
}

export interface StartedServer {
  container: string;
  url: string;
  image: string;
}

/** Where the application lives inside the infrastructure images. */
export const APP_DIR = '/federa';

export async function startServer(
  ref: InstanceRef,
  options: ServerStartOptions,
  progress: Progress,
  env: Env = process.env,
  engine?: DockerEngine,
): Promise<StartedServer> {
  const docker = engine ?? (await connectDocker(env));
  const raw = checkServerConfig(ref.file, options.environment, {});
  const dataDir = serverHostDataDir(ref, raw, env);
  const db = placeDatabase(typeof raw.uri === 'string' ? raw.uri : 'sqlite:///default.sqlite', dataDir);
  // What the server in the container will see: validate that too, before anything starts.
  checkServerConfig(ref.file, options.environment, { FEDERA_DB_URI: db.containerUri });

  const container = serverContainerName(ref.name, ref.scope);
  if (await docker.isRunning(container)) {
    throw new CliError(
      'state',
      `the server '${ref.name}' (${ref.scope}) is running already (container ${container}); stop it with 'vserver stop -n ${ref.name}'`,
    );
  }

  const image = chooseImage('server', options.image, raw);
  await ensureImage(docker, image.ref, progress);
  await warnOnMajorMismatch(docker, image.ref, progress);

  const hostIp = options.ip ?? (typeof raw.ip === 'string' ? raw.ip : '0.0.0.0');
  const hostPort = Number(options.port ?? raw.port ?? 5000);
  if (!Number.isInteger(hostPort) || hostPort < 1 || hostPort > 65535) {
    throw new CliError(
      'usage',
      `-p/--port: expected a port between 1 and 65535, got '${options.port ?? String(raw.port)}'`,
    );
  }
  const apiPath = typeof raw.api_path === 'string' ? raw.api_path : '/api';

  const binds = [`${resolve(ref.file)}:/mnt/config.yaml:ro`];
  const containerEnv: Record<string, string> = { FEDERA_CONFIG_NAME: ref.name };
  if (db.kind === 'sqlite-file') {
    mkdirSync(db.hostDir, { recursive: true });
    binds.push(`${db.hostDir}:${CONTAINER_DB_DIR}`);
    containerEnv.FEDERA_DB_URI = db.containerUri;
  } else if (db.kind === 'external' && db.localHost) {
    progress.warn(
      `the database URI points at this host's loopback address; inside the container that is the container itself. ` +
        'Use an address the container can reach (e.g. host.docker.internal).',
    );
  }
  // The audit log (docs/audit.md) stays on the host, in the data folder, whatever happens to the container.
  const hostAuditDir = join(dataDir, 'audit');
  mkdirSync(hostAuditDir, { recursive: true, mode: 0o700 });
  binds.push(`${hostAuditDir}:${CONTAINER_AUDIT_DIR}`);
  // Its key beside it, made here so that it is a file on the host (a missing bind source becomes a folder).
  await openAuditKey(auditKeyPath(hostAuditDir));
  binds.push(`${auditKeyPath(hostAuditDir)}:${auditKeyPath(CONTAINER_AUDIT_DIR)}`);
  containerEnv.FEDERA_AUDIT_DIRECTORY = CONTAINER_AUDIT_DIR;
  // The VPN (docs/vpn.md): its folder is shared with the federa/vpn-server container, which runs OpenVPN.
  const vpn = vpnSettings(raw);
  const hostVpnDir = join(dataDir, 'vpn');
  if (vpn) {
    mkdirSync(hostVpnDir, { recursive: true, mode: 0o700 });
    binds.push(`${hostVpnDir}:${CONTAINER_VPN_DIR}`);
    containerEnv.FEDERA_VPN_DIRECTORY = CONTAINER_VPN_DIR;
    containerEnv.FEDERA_VPN_RUN_SERVER = 'false';
  }
  if (options.develop) {
    const src = resolve(options.develop);
    if (!existsSync(resolve(src, 'packages/server/dist'))) {
      throw new CliError(
        'usage',
        `--develop: ${src} is not a built Federa checkout (no packages/server/dist; run 'npm run build' there)`,
      );
    }
    binds.push(`${src}:${APP_DIR}`);
  }

  const network = serverNetworkName(ref.name, ref.scope);
  await docker.ensureNetwork(network, { [TYPE_LABEL]: 'server-network' });
  await docker.removeContainer(container); // a stopped leftover of --keep
  const vpnContainer = vpnContainerName(container);
  await docker.removeContainer(vpnContainer);
  try {
    await runServerContainer();
    if (vpn) await runVpnContainer(vpn);
  } catch (error) {
    // Leave nothing behind: the created (not started) containers and the network made above.
    await docker.removeContainer(vpnContainer).catch(() => undefined);
    await docker.removeContainer(container).catch(() => undefined);
    await docker.removeNetwork(network).catch(() => undefined);
    const text = (error as Error).message;
    if (/port is already allocated|address already in use|bind for .* failed/i.test(text)) {
      throw new CliError(
        'state',
        `the port ${hostIp}:${hostPort} is already in use on this host (another server or program listens there). ` +
          `Start on another port with -p <port>, or change it for good with: vserver set -n ${ref.name}${ref.scope === 'user' ? ' --user' : ''} port=<port>`,
        { cause: error },
      );
    }
    throw error;
  }
  async function runServerContainer(): Promise<void> {
    await docker.run({
      name: container,
      image: image.ref,
      cmd: [
        'vserver-local',
        'start',
        '-c',
        '/mnt/config.yaml',
        '-e',
        options.environment,
        '--ip',
        '0.0.0.0',
        '-p',
        String(CONTAINER_PORT),
      ],
      env: containerEnv,
      labels: {
        [TYPE_LABEL]: 'server',
        [LABELS.name]: ref.name,
        [LABELS.system]: ref.scope === 'system' ? 'True' : 'False',
        [LABELS.environment]: options.environment,
        [LABELS.hostIp]: hostIp,
        [LABELS.hostPort]: String(hostPort),
        [LABELS.apiPath]: apiPath,
      },
      binds,
      ports: [{ container: CONTAINER_PORT, hostIp, hostPort }],
      network,
      autoRemove: !options.keep,
      extraHosts: ['host.docker.internal:host-gateway'],
    });
  }

  /** OpenVPN with the configuration the server writes into the shared folder at its start. */
  async function runVpnContainer(settings: { port: number; proto: 'udp' | 'tcp' }): Promise<void> {
    const images = (raw.images ?? {}) as Record<string, unknown>;
    const vpnImage = typeof images.vpn_server === 'string' ? images.vpn_server : VPN_SERVER_IMAGE;
    await docker.run({
      name: vpnContainer,
      image: vpnImage,
      cmd: [
        'sh',
        '-c',
        `while [ ! -s ${CONTAINER_VPN_DIR}/server.conf ]; do sleep 0.5; done; exec openvpn --cd ${CONTAINER_VPN_DIR} --config server.conf`,
      ],
      env: {},
      labels: {
        [TYPE_LABEL]: 'vpn-server',
        [LABELS.name]: ref.name,
        [LABELS.system]: ref.scope === 'system' ? 'True' : 'False',
      },
      binds: [`${hostVpnDir}:${CONTAINER_VPN_DIR}`],
      ports: [
        { container: settings.port, hostIp: '0.0.0.0', hostPort: settings.port, protocol: settings.proto },
      ],
      network,
      autoRemove: !options.keep,
      capAdd: ['NET_ADMIN'],
      devices: ['/dev/net/tun'],
    });
    progress.info(
      `VPN server runs in container ${vpnContainer} (${settings.proto} port ${settings.port}); its files are in ${hostVpnDir}`,
    );
  }

  const reachable = hostIp === '0.0.0.0' || hostIp === '::' ? '127.0.0.1' : hostIp;
  const url = `http://${reachable}:${hostPort}${apiPath}`;
  const waitSeconds = options.wait ?? 60;
  if (waitSeconds > 0) {
    const step = progress.step(`waiting for the server to answer at ${url}`);
    const tail = docker.tail(container, 400);
    const version = await waitFor(
      async () => ((await getJson(`${url}/version`, { timeoutMs: 2000 })) as { version?: string }).version,
      {
        timeoutMs: waitSeconds * 1000,
        onTick: (ms) => step.update(`${Math.round(ms / 1000)}s`),
        stop: async () => !(await docker.isRunning(container)),
      },
    );
    tail.stop();
    const generated = generatedRootPassword(tail.lines());
    if (version === undefined) {
      const running = await docker.isRunning(container);
      step.fail(running ? 'no answer in time' : 'the container stopped');
      throw new CliError(
        running ? 'timeout' : 'failure',
        `the server did not come online${running ? ` within ${waitSeconds}s` : ' (its container stopped)'}. Last log lines:\n  ${tail.lines().slice(-15).join('\n  ')}`,
      );
    }
    step.succeed(`version ${version}`);
    if (generated)
      process.stderr.write(
        `\nThe root user '${generated.username}' was created with this generated password (shown only this once; store it now, change it after logging in):\n\n    ${generated.password}\n\n`,
      );
  }
  progress.info(
    `Server '${ref.name}' runs in container ${container}; ${serverAddresses(`http://${reachable}:${hostPort}`, apiPath, raw)}`,
  );
  if (options.attach) await attachLogs(docker, container);
  return { container, url, image: image.ref };
}

/** The addresses `vserver start` shows: the web UI (unless `ui.enabled` is false), the API and its documentation. */
export function serverAddresses(root: string, apiPath: string, raw: Record<string, unknown>): string {
  const ui = (typeof raw.ui === 'object' && raw.ui !== null ? raw.ui : {}) as {
    enabled?: unknown;
    path?: unknown;
  };
  const uiPath = typeof ui.path === 'string' ? ui.path : '/';
  const web = ui.enabled === false ? '' : `web UI at ${root}${uiPath}, `;
  return `${web}API at ${root}${apiPath}, docs at ${root}/apidocs`;
}

/** Where the server container and the VPN server container see the VPN folder. */
export const CONTAINER_VPN_DIR = '/mnt/vpn';
/** The server's data folder on the host: `directories.data`, else the instance's XDG data folder. */
export function serverHostDataDir(
  ref: { scope: Scope; name: string },
  raw: Record<string, unknown>,
  env: Env = process.env,
): string {
  const data = (raw.directories as { data?: unknown } | undefined)?.data;
  return typeof data === 'string' ? resolve(data) : instanceDataDir('server', ref.scope, ref.name, env);
}

/** Where `vserver start` mounts `<host data folder>/audit` (docs/audit.md). */
export const CONTAINER_AUDIT_DIR = '/mnt/audit';
/** The VPN server image (scripts/build-images.sh); `images.vpn_server` in the configuration overrides it. */
export const VPN_SERVER_IMAGE = 'federa/vpn-server:local';
/** The VPN server container that runs beside a server container. */
export const vpnContainerName = (serverContainer: string): string => `${serverContainer}-vpn`;

/** The `vpn` section's port and protocol, or undefined when the configuration has no VPN. */
function vpnSettings(raw: Record<string, unknown>): { port: number; proto: 'udp' | 'tcp' } | undefined {
  const vpn = raw.vpn;
  if (typeof vpn !== 'object' || vpn === null) return undefined;
  const { port, proto } = vpn as { port?: unknown; proto?: unknown };
  return { port: typeof port === 'number' ? port : 1194, proto: proto === 'tcp' ? 'tcp' : 'udp' };
}

/** The root password the server generated at its first start, from the line it writes to its terminal only. */
export function generatedRootPassword(
  lines: readonly string[],
): { username: string; password: string } | undefined {
  for (const line of lines) {
    const m = /The root user '([^']+)' was created with the generated password: (\S+)/.exec(line);
    if (m?.[1] && m[2]) return { username: m[1], password: m[2] };
  }
  return undefined;
}

export interface AttachOptions {
  /** Raw lines as the container writes them (JSON), instead of readable ones. */
  json?: boolean;
  /** Only the last N lines of the history, then follow. */
  tail?: number;
  /** Stop at the end of the history instead of following (tests, scripts). */
  follow?: boolean;
}

/**
 * Streams a container's logs to stdout, readable unless `json` (docs/cli.md), until Ctrl-C or until the container
 * stops.
 */
export async function attachLogs(
  docker: DockerEngine,
  container: string,
  options: AttachOptions = {},
): Promise<void> {
  const abort = new AbortController();
  const onSigint = (): void => abort.abort();
  process.once('SIGINT', onSigint);
  const out = options.json ? process.stdout : readableLogStream(process.stdout);
  try {
    await docker.streamLogs(container, out, {
      follow: options.follow ?? true,
      signal: abort.signal,
      ...(options.tail !== undefined ? { tail: options.tail } : {}),
    });
  } finally {
    process.removeListener('SIGINT', onSigint);
    if (out !== process.stdout) await new Promise<void>((resolve) => out.end(resolve));
  }
}

/** `--tail <n>`: a whole number of lines. */
export function parseTail(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new CliError('usage', `--tail: expected a number of lines, got '${value}'`);
  return Number(value);
}
