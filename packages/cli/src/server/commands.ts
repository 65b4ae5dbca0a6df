/** `vserver list | status | files | stop | attach | version` (`import` is in import.ts). */
import { serverAddresses, vpnContainerName } from './start.js';
import { checkServerConfig } from '../config/validate.js';
import { environmentOf, type InstanceRef, listInstances, readDocument } from '../config/store.js';
import { connectDocker, type DockerEngine } from '../docker/engine.js';
import { CliError } from '../exit-codes.js';
import { type Env, type Scope, instanceDataDir } from '../paths.js';
import { getJson } from '../util/http.js';
import { CLI_VERSION } from '../version.js';
import { placeDatabase } from './database.js';
import { LABELS, TYPE_LABEL, serverContainerName, serverNetworkName } from './naming.js';

export interface ServerListRow {
  name: string;
  scope: Scope;
  environments: string[];
  status: 'online' | 'offline';
  file: string;
}

export async function listServers(env: Env = process.env, engine?: DockerEngine): Promise<ServerListRow[]> {
  const docker = engine ?? (await connectDocker(env));
  const running = new Set((await docker.runningWithLabel(TYPE_LABEL, 'server')).map((c) => c.name));
  return listInstances('server', env).map((i) => ({
    name: i.name,
    scope: i.scope,
    environments: i.environments,
    status: running.has(serverContainerName(i.name, i.scope)) ? 'online' : 'offline',
    file: i.file,
  }));
}

export function serverFiles(
  ref: InstanceRef,
  environment: string,
  env: Env = process.env,
): Record<string, string> {
  const raw = checkServerConfig(ref.file, environment);
  const dataDir = instanceDataDir('server', ref.scope, ref.name, env);
  const uri = typeof raw.uri === 'string' ? raw.uri : 'sqlite:///default.sqlite';
  const db = placeDatabase(uri, dataDir);
  return {
    'configuration file': ref.file,
    'data folder': dataDir,
    // The server in Docker writes its log to the container's output only (no log folder is mounted).
    logs: `the container's output: vserver attach -n ${ref.name}${ref.scope === 'user' ? ' --user' : ''} (no log file on this host)`,
    database: db.kind === 'sqlite-file' ? `sqlite:///${db.hostFile}` : uri,
  };
}

/** Stops one server (or all with `all`), removes its network. Returns the containers stopped. */
export async function stopServers(
  target: { name: string; scope: Scope } | 'all',
  env: Env = process.env,
  engine?: DockerEngine,
): Promise<string[]> {
  const docker = engine ?? (await connectDocker(env));
  const running = await docker.runningWithLabel(TYPE_LABEL, 'server');
  const chosen =
    target === 'all'
      ? running
      : running.filter((c) => c.name === serverContainerName(target.name, target.scope));
  if (target !== 'all' && chosen.length === 0) {
    throw new CliError('state', `the server '${target.name}' (${target.scope}) is not running`);
  }
  for (const c of chosen) {
    await docker.stop(c.name, 10);
    await docker.waitGone(c.name);
    // Its VPN server (docs/vpn.md), when it has one.
    await docker.stop(vpnContainerName(c.name), 5);
    await docker.removeContainer(vpnContainerName(c.name));
    const scope: Scope = c.labels[LABELS.system] === 'True' ? 'system' : 'user';
    await docker.removeNetwork(serverNetworkName(c.labels[LABELS.name] ?? '', scope));
  }
  return chosen.map((c) => c.name);
}

/** The address of a running server's API, from the labels `vserver start` put on its container. */
export async function runningServerApi(
  ref: { name: string; scope: Scope },
  docker: DockerEngine,
): Promise<string> {
  const name = serverContainerName(ref.name, ref.scope);
  const info = await docker.containerInfo(name);
  if (!info?.running)
    throw new CliError(
      'state',
      `the server '${ref.name}' (${ref.scope}) is not running; start it with 'vserver start -n ${ref.name}'`,
    );
  const ip = info.labels[LABELS.hostIp] ?? '0.0.0.0';
  const host = ip === '0.0.0.0' || ip === '::' ? '127.0.0.1' : ip;
  return `http://${host}:${info.labels[LABELS.hostPort] ?? '5000'}${info.labels[LABELS.apiPath] ?? '/api'}`;
}

export async function serverVersion(
  ref: { name: string; scope: Scope },
  env: Env = process.env,
  engine?: DockerEngine,
): Promise<{ server: string; cli: string }> {
  const docker = engine ?? (await connectDocker(env));
  const api = await runningServerApi(ref, docker);
  const body = (await getJson(`${api}/version`)) as { version?: string };
  return { server: body.version ?? 'unknown', cli: CLI_VERSION };
}

/**
 * `vserver status`: one line per server configuration, and for a running one where its web UI, API and API
 * documentation are (from the labels `vserver start` put on its container, and the configuration's `ui` section).
 */
export async function serverStatus(env: Env = process.env, engine?: DockerEngine): Promise<string[]> {
  const docker = engine ?? (await connectDocker(env));
  const running = await docker.runningWithLabel(TYPE_LABEL, 'server');
  const instances = listInstances('server', env);
  if (instances.length === 0) return ['No server configurations: create one with vserver new.'];
  return instances.map((i) => {
    const flag = i.scope === 'user' ? ' --user' : '';
    const c = running.find((r) => r.name === serverContainerName(i.name, i.scope));
    if (!c) return `${i.name} (${i.scope}): not running; start it with vserver start -n ${i.name}${flag}`;
    const ip = c.labels[LABELS.hostIp] ?? '0.0.0.0';
    const host = ip === '0.0.0.0' || ip === '::' ? '127.0.0.1' : ip;
    let raw: Record<string, unknown> = {};
    try {
      // Read as written (its `ui` section only), not checked: a status needs no valid configuration.
      raw = environmentOf(readDocument(i.file), c.labels[LABELS.environment] ?? 'prod');
    } catch {
      // The file went or changed since the start: the addresses are still those of the labels.
    }
    const root = `http://${host}:${c.labels[LABELS.hostPort] ?? '5000'}`;
    return `${i.name} (${i.scope}): running in container ${c.name}; ${serverAddresses(root, c.labels[LABELS.apiPath] ?? '/api', raw)}`;
  });
}
