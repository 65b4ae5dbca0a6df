/** `vnode list | files | stop | attach | clean | remove | create-private-key | version`. */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ENVIRONMENTS, createPrivateKeyFile, publicKeyBase64, readPrivateKeyFile } from '@federa/common';
import { checkNodeConfig } from '../config/validate.js';
import { type InstanceRef, listInstances, readDocument, environmentOf, setKey } from '../config/store.js';
import { connectDocker, type DockerEngine } from '../docker/engine.js';
import { CliError } from '../exit-codes.js';
import { type Env, type Scope, defaultLogFileName, typeDirs } from '../paths.js';
import { getJson, sendJson } from '../util/http.js';
import { CLI_VERSION } from '../version.js';
import { networkName, vpnClientName } from '@federa/common';
import {
  isRunVolume,
  isRunVolumeOf,
  isVolumeOf,
  nodeContainerName,
  nodeNames,
  TYPE_LABEL,
} from './naming.js';
import { hostSideApi, nodeLayout } from './start.js';

export interface NodeListRow {
  name: string;
  scope: Scope;
  environments: string[];
  /** The Docker container: `running`, `stopped` (kept with --keep) or `-` (none). */
  container: 'running' | 'stopped' | '-';
  /**
   * What the server says of the node (asked with the node's API key, from this host): `online`, `offline`,
   * `unreachable` (no answer), `refused` (the API key was refused) or `-` (no API key configured).
   */
  server: 'online' | 'offline' | 'unreachable' | 'refused' | '-';
  file: string;
}

/** The node's status as the server holds it, asked with its API key (docs/cli.md `vnode list`). */
async function serverView(raw: Record<string, unknown>): Promise<NodeListRow['server']> {
  if (typeof raw.api_key !== 'string' || raw.api_key === '' || typeof raw.server_url !== 'string') return '-';
  let api: string;
  try {
    api = hostSideApi(raw);
  } catch {
    return '-';
  }
  let res: { access_token?: string; node_url?: string };
  try {
    res = (await sendJson('POST', `${api}/token/node`, { api_key: raw.api_key }, { timeoutMs: 2000 })) as {
      access_token?: string;
      node_url?: string;
    };
  } catch (error) {
    return /answered 40[13]/.test((error as Error).message) ? 'refused' : 'unreachable';
  }
  try {
    const node = (await getJson(`${new URL(api).origin}${res.node_url ?? ''}`, {
      token: res.access_token ?? '',
      timeoutMs: 2000,
    })) as { status?: string };
    return node.status === 'online' ? 'online' : 'offline';
  } catch {
    return 'unreachable';
  }
}

export async function listNodes(env: Env = process.env, engine?: DockerEngine): Promise<NodeListRow[]> {
  const docker = engine ?? (await connectDocker(env));
  const containers = new Map(
    (await docker.allWithLabel(TYPE_LABEL, 'node')).map((c) => [c.name, c.running] as const),
  );
  return Promise.all(
    listInstances('node', env).map(async (i): Promise<NodeListRow> => {
      const state = containers.get(nodeContainerName(i.name, i.scope));
      let raw: Record<string, unknown> = {};
      try {
        const doc = readDocument(i.file);
        raw = environmentOf(
          doc,
          i.environments.includes('application') ? 'application' : (i.environments[0] ?? 'application'),
        );
      } catch {
        raw = {};
      }
      return {
        name: i.name,
        scope: i.scope,
        environments: i.environments,
        container: state === undefined ? '-' : state ? 'running' : 'stopped',
        server: await serverView(raw),
        file: i.file,
      };
    }),
  );
}

export function nodeFiles(ref: InstanceRef, environment: string, env: Env = process.env): [string, string][] {
  const raw = checkNodeConfig(ref.file, environment, ref.name, env);
  const layout = nodeLayout(ref, raw, env);
  // The node writes a log file only when `logging.file` is set; else its log is the container's output.
  const logFile = (raw.logging as { file?: string } | undefined)?.file;
  const scopeFlag = ref.scope === 'system' ? ' --system' : '';
  return [
    ['configuration file', ref.file],
    ['data folder', layout.dataDir],
    // Always a path (the logs row may be a sentence): the runs' logs a node keeps are here (docs/run-logs.md).
    ['log folder', layout.logDir],
    logFile
      ? ['log file', resolve(layout.logDir, logFile)]
      : [
          'logs',
          `the container's output: vnode attach -n ${ref.name}${scopeFlag} (vnode set -n ${ref.name} logging.file=node.log also writes ${resolve(layout.logDir, 'node.log')})`,
        ],
    ['private key', layout.privateKey],
    ...layout.databases.map((d): [string, string] => [`database '${d.label}'`, d.hostFile ?? d.uri]),
    [
      'VPN',
      typeof raw.vpn_subnet === 'string' && raw.vpn_subnet !== ''
        ? `subnet ${raw.vpn_subnet}; its client runs in the container ${vpnClientContainerName(ref.name)}, which holds the configuration the server issued (renewed by the node; docs/vpn.md)`
        : 'not used (no vpn_subnet in the configuration)',
    ],
  ];
}

/** The VPN client container of a node (docs/vpn.md). */
export const vpnClientContainerName = (node: string): string => vpnClientName(nodeNames(node));

/** Names of the node containers that run on this Docker host (every user's). */
export async function runningNodes(env: Env = process.env, engine?: DockerEngine): Promise<string[]> {
  const docker = engine ?? (await connectDocker(env));
  return (await docker.runningWithLabel(TYPE_LABEL, 'node')).map((c) => c.name).sort();
}

export async function stopNodes(
  target: { name: string; scope: Scope } | 'all',
  options: { force?: boolean } = {},
  env: Env = process.env,
  engine?: DockerEngine,
): Promise<string[]> {
  const docker = engine ?? (await connectDocker(env));
  const running = await docker.runningWithLabel(TYPE_LABEL, 'node');
  const chosen =
    target === 'all'
      ? running
      : running.filter((c) => c.name === nodeContainerName(target.name, target.scope));
  if (target !== 'all' && chosen.length === 0)
    throw new CliError('state', `the node '${target.name}' (${target.scope}) is not running`);
  for (const c of chosen) {
    if (options.force) await docker.kill(c.name);
    else await docker.stop(c.name, 10);
    await docker.waitGone(c.name);
  }
  return chosen.map((c) => c.name);
}

/** Run volumes (`…tmpvol`) of one node, or of every node with `all`. */
export async function runVolumes(target: { name: string } | 'all', docker: DockerEngine): Promise<string[]> {
  const names = await docker.volumeNames();
  return names.filter((v) => (target === 'all' ? isRunVolume(v) : isRunVolumeOf(v, target.name))).sort();
}

export async function cleanNode(
  target: { name: string } | 'all',
  docker: DockerEngine,
): Promise<{ removed: string[]; inUse: string[] }> {
  const removed: string[] = [];
  const inUse: string[] = [];
  for (const v of await runVolumes(target, docker)) {
    try {
      await docker.removeVolume(v);
      removed.push(v);
    } catch {
      inUse.push(v);
    }
  }
  return { removed, inUse };
}

/** What `vnode remove` deletes: the configuration file, the node's volumes, its data folder (keys), its log files. */
export async function removalPlan(
  ref: InstanceRef,
  docker: DockerEngine,
  env: Env = process.env,
): Promise<{ files: string[]; volumes: string[] }> {
  const files = new Set<string>([ref.file]);
  const doc = readDocument(ref.file);
  for (const e of ENVIRONMENTS) {
    const raw = environmentOf(doc, e);
    if (Object.keys(raw).length === 0) continue;
    const layout = nodeLayout(ref, raw, env);
    files.add(layout.dataDir);
    files.add(
      resolve(
        layout.logDir,
        (raw.logging as { file?: string } | undefined)?.file ?? defaultLogFileName(ref.name, e, ref.scope),
      ),
    );
    if (existsSync(layout.privateKey)) files.add(layout.privateKey);
  }
  files.add(join(typeDirs('node', ref.scope, env).data, ref.name));
  const volumes = (await docker.volumeNames()).filter((v) => isVolumeOf(v, ref.name)).sort();
  return { files: [...files].filter((f) => existsSync(f)), volumes };
}

export async function removeNode(
  ref: InstanceRef,
  docker: DockerEngine,
  env: Env = process.env,
): Promise<{ files: string[]; volumes: string[] }> {
  if (await docker.isRunning(nodeContainerName(ref.name, ref.scope))) {
    throw new CliError(
      'state',
      `the node '${ref.name}' is running; stop it first with 'vnode stop -n ${ref.name}'`,
    );
  }
  const plan = await removalPlan(ref, docker, env);
  for (const v of plan.volumes) await docker.removeVolume(v);
  for (const f of plan.files) rmSync(f, { recursive: true, force: true });
  await docker.removeContainer(vpnClientContainerName(ref.name)).catch(() => undefined);
  await docker.removeNetwork(networkName(nodeNames(ref.name))).catch(() => undefined);
  return plan;
}

export interface PrivateKeyOptions {
  environment: string;
  organizationName?: string;
  overwrite?: boolean;
  upload: boolean;
}

/**
 * Writes `privkey_<organization>.pem` into the node's data folder, sets `encryption.private_key` in the
 * configuration and, unless `upload` is false, uploads the public key (logging in with the node's API key).
 */
export async function createPrivateKey(
  ref: InstanceRef,
  options: PrivateKeyOptions,
  env: Env = process.env,
  log: (line: string) => void = () => undefined,
  engine?: DockerEngine,
): Promise<{ file: string; organization: string; created: boolean; uploaded: boolean }> {
  const raw = checkNodeConfig(ref.file, options.environment, ref.name, env);
  // A running node keeps the key it started with: a new public key on the server would make every run it
  // receives undecryptable (docs/cli.md `vnode create-private-key`).
  const docker = engine ?? (await connectDocker(env));
  const container = nodeContainerName(ref.name, ref.scope);
  if (await docker.isRunning(container)) {
    const scopeFlag = ref.scope === 'system' ? ' --system' : '';
    throw new CliError(
      'state',
      `the node '${ref.name}' is running with its current key (container ${container}); a new key now would leave it unable to decrypt its tasks. ` +
        `Stop it first (vnode stop -n ${ref.name}${scopeFlag}), create the key, then start it again (vnode start -n ${ref.name}${scopeFlag})`,
    );
  }
  const layout = nodeLayout(ref, raw, env);
  const api = hostSideApi(raw);
  let session:
    { token: string; organizationId: number; organizationName: string; publicKey: string } | undefined;
  const login = async (): Promise<typeof session> => {
    const res = (await sendJson('POST', `${api}/token/node`, { api_key: raw.api_key })) as {
      access_token?: string;
      node_url?: string;
    };
    if (!res.access_token || !res.node_url)
      throw new CliError('remote', 'logging in with the node API key gave no token');
    const origin = new URL(api).origin;
    const node = (await getJson(`${origin}${res.node_url}`, { token: res.access_token })) as {
      organization?: { id: number };
    };
    const orgId = node.organization?.id;
    if (orgId === undefined) throw new CliError('remote', "the server did not tell the node's organization");
    const org = (await getJson(`${api}/organization/${orgId}`, { token: res.access_token })) as {
      name?: string;
      public_key?: string | null;
    };
    return {
      token: res.access_token,
      organizationId: orgId,
      organizationName: org.name ?? String(orgId),
      publicKey: typeof org.public_key === 'string' ? org.public_key : '',
    };
  };

  let organization = options.organizationName;
  if (!organization) {
    session = await login();
    organization = session?.organizationName ?? '';
  }
  const safe = organization.replace(/[^A-Za-z0-9_.-]+/g, '_');
  const file = join(layout.dataDir, `privkey_${safe}.pem`);
  let created = false;
  let key;
  if (existsSync(file) && !options.overwrite) {
    log(`Keeping the existing key ${file} (--overwrite replaces it)`);
    key = await readPrivateKeyFile(file);
  } else {
    mkdirSync(layout.dataDir, { recursive: true });
    key = await createPrivateKeyFile(file, { overwrite: true });
    created = true;
    log(`Wrote a new 4096-bit RSA key to ${file}`);
  }
  setKey(ref.file, options.environment, 'encryption.private_key', file);
  log(`Set encryption.private_key in ${ref.file}`);
  let uploaded = false;
  if (options.upload) {
    session ??= await login();
    if (session) {
      const publicKey = publicKeyBase64(key);
      // Only a key that replaces another one makes earlier encrypted tasks and results unreadable.
      if (session.publicKey !== '' && session.publicKey !== publicKey)
        log(
          'warning: this replaces the public key the organization had: results and tasks encrypted for the previous key can no longer be decrypted with the new key; every node of the organization must use this key file',
        );
      await sendJson(
        'PATCH',
        `${api}/organization/${session.organizationId}`,
        { public_key: publicKey },
        { token: session.token },
      );
      uploaded = true;
      log(
        `Uploaded the public key of organization ${session.organizationName} (id ${session.organizationId})`,
      );
    }
  }
  return { file, organization, created, uploaded };
}

export async function nodeVersion(
  ref: { name: string; scope: Scope },
  env: Env = process.env,
  engine?: DockerEngine,
): Promise<{ node: string; cli: string }> {
  const docker = engine ?? (await connectDocker(env));
  const container = nodeContainerName(ref.name, ref.scope);
  if (!(await docker.isRunning(container)))
    throw new CliError('state', `the node '${ref.name}' (${ref.scope}) is not running`);
  const res = await docker.exec(container, ['vnode-local', 'version']);
  if (res.exitCode !== 0)
    throw new CliError('failure', `vnode-local version failed in ${container}: ${res.output.trim()}`);
  return { node: res.output.trim(), cli: CLI_VERSION };
}
