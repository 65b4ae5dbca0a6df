/** `vnode start`: runs the node image in Docker (docs/cli.md#vnode-start, with Federa's names). */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { auditKeyPath, createPrivateKeyFile, openAuditKey } from '@federa/common';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { checkNodeConfig } from '../config/validate.js';
import type { InstanceRef } from '../config/store.js';
import { connectDocker, type DockerEngine } from '../docker/engine.js';
import { chooseImage, ensureImage, warnOnMajorMismatch } from '../docker/images.js';
import { CliError } from '../exit-codes.js';
import { type Env, instanceDataDir, typeDirs } from '../paths.js';
import { waitFor } from '../util/http.js';
import type { Progress } from '../util/progress.js';
import { attachLogs } from '../server/start.js';
import {
  IN_CONTAINER,
  TYPE_LABEL,
  nodeContainerName,
  nodeDataVolumeName,
  nodeVpnVolumeName,
} from './naming.js';
import { type NodeVerdict, nodeVerdict, unreachableAdvice } from './verdict.js';

export interface NodeStartOptions {
  environment: string;
  image?: string;
  attach?: boolean;
  keep?: boolean;
  /** Source checkout mounted at /federa (`--develop`, alias `--mount-src`). */
  develop?: string;
  /** Mount file databases even when they do not exist yet. */
  forceDbMount?: boolean;
  /** Seconds to wait for the server to report the node online; 0 = do not wait. */
  wait?: number;
}

export interface NodeLayout {
  readonly dataDir: string;
  readonly logDir: string;
  /** Host path of the private key, whether it exists or not. */
  readonly privateKey: string;
  readonly databases: {
    label: string;
    uri: string;
    type: string | undefined;
    hostFile: string | undefined;
  }[];
}

const asString = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Where a node's folders, key and file databases are on the host. */
export function nodeLayout(
  ref: InstanceRef,
  raw: Record<string, unknown>,
  env: Env = process.env,
): NodeLayout {
  const dirs = (raw.directories ?? {}) as { data?: unknown; log?: unknown };
  const configDir = dirname(resolve(ref.file));
  const here = (p: string): string => (isAbsolute(p) ? p : resolve(configDir, p));
  const dataDir = asString(dirs.data)
    ? here(dirs.data as string)
    : instanceDataDir('node', ref.scope, ref.name, env);
  const logDir = asString(dirs.log) ? here(dirs.log as string) : typeDirs('node', ref.scope, env).log;
  const keySetting =
    env.PRIVATE_KEY ?? asString((raw.encryption as { private_key?: unknown } | undefined)?.private_key);
  const privateKey = keySetting
    ? isAbsolute(keySetting)
      ? keySetting
      : resolve(dataDir, keySetting)
    : resolve(dataDir, 'private_key.pem');

  const list: { label: string; uri: string; type: string | undefined }[] = Array.isArray(raw.databases)
    ? (raw.databases as { label: string; uri: string; type?: string }[]).map((d) => ({
        label: d.label,
        uri: d.uri,
        type: d.type,
      }))
    : Object.entries((raw.databases ?? {}) as Record<string, string>).map(([label, uri]) => ({
        label,
        uri,
        type: undefined,
      }));
  const databases = list.map((d) => {
    const looksLikeUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(d.uri);
    const candidate = looksLikeUrl ? undefined : here(d.uri);
    let hostFile: string | undefined;
    try {
      hostFile = candidate !== undefined && statSync(candidate).isFile() ? candidate : undefined;
    } catch {
      hostFile = undefined;
    }
    return { ...d, hostFile, candidate };
  });
  return { dataDir, logDir, privateKey, databases: databases.map(({ candidate: _c, ...d }) => d) };
}

/** The node's audit log folder on the host (docs/audit.md). */
export const nodeAuditDir = (layout: Pick<NodeLayout, 'dataDir'>): string => join(layout.dataDir, 'audit');

/** The node's held results on the host (docs/output-control.md). */
export const nodeReviewDir = (layout: Pick<NodeLayout, 'dataDir'>): string => join(layout.dataDir, 'review');

/** The mounts and environment of the node container (docs/cli.md#vnode-start). */
export function nodeContainerSetup(
  ref: InstanceRef,
  layout: NodeLayout,
  options: { develop?: string; forceDbMount?: boolean },
): { binds: string[]; env: Record<string, string> } {
  const dataVolume = nodeDataVolumeName(ref.name, ref.scope);
  const vpnVolume = nodeVpnVolumeName(ref.name, ref.scope);
  const binds = [
    `${layout.logDir}:${IN_CONTAINER.log}`,
    `${dataVolume}:${IN_CONTAINER.data}`,
    `${vpnVolume}:${IN_CONTAINER.vpn}`,
    `${nodeAuditDir(layout)}:${IN_CONTAINER.audit}`,
    `${nodeReviewDir(layout)}:${IN_CONTAINER.review}`,
    `${auditKeyPath(nodeAuditDir(layout))}:${auditKeyPath(IN_CONTAINER.audit)}`,
    `${dirname(resolve(ref.file))}:${IN_CONTAINER.config}`,
    `${IN_CONTAINER.dockerSocket}:${IN_CONTAINER.dockerSocket}`,
  ];
  const env: Record<string, string> = {
    DATA_VOLUME_NAME: dataVolume,
    VPN_VOLUME_NAME: vpnVolume,
    // The node attaches its own container to its private network (alias proxyserver); this names it.
    FEDERA_NODE_CONTAINER: nodeContainerName(ref.name, ref.scope),
  };
  if (options.develop) binds.push(`${options.develop}:/federa`);
  if (existsSync(layout.privateKey)) {
    binds.push(`${layout.privateKey}:${IN_CONTAINER.privateKey}:ro`);
    env.PRIVATE_KEY = IN_CONTAINER.privateKey;
  }
  for (const db of layout.databases) {
    const key = `${db.label.toUpperCase()}_DATABASE_URI`;
    const wantsMount =
      db.hostFile !== undefined ||
      (options.forceDbMount === true && !/^[a-z][a-z0-9+.-]*:\/\//i.test(db.uri));
    if (wantsMount) {
      const host = db.hostFile ?? resolve(dirname(resolve(ref.file)), db.uri);
      const inside = `${db.label}${extname(host)}`;
      binds.push(`${host}:${IN_CONTAINER.mounts}/${inside}:ro`);
      // Relative: `vnode-local start --dockerized` reads it as /mnt/<label><ext> and copies it into the data volume.
      env[key] = inside;
      if (db.label === 'default') env.DATABASE_URI = `${IN_CONTAINER.mounts}/${inside}`;
    } else {
      env[key] = db.uri;
      if (db.label === 'default') env.DATABASE_URI = db.uri;
    }
  }
  return { binds, env };
}

/** The server as seen from this host (host.docker.internal is this host). */
export function hostSideApi(raw: Record<string, unknown>): string {
  const url = new URL(String(raw.server_url).replace(/\/$/, ''));
  if (url.hostname === 'host.docker.internal') url.hostname = '127.0.0.1';
  const port = raw.port === null || raw.port === undefined || raw.port === '' ? '' : `:${String(raw.port)}`;
  return `${url.protocol}//${url.hostname}${port}${typeof raw.api_path === 'string' ? raw.api_path : '/api'}`;
}

export async function startNode(
  ref: InstanceRef,
  options: NodeStartOptions,
  progress: Progress,
  env: Env = process.env,
  engine?: DockerEngine,
): Promise<{ container: string; image: string; online: boolean | undefined }> {
  const docker = engine ?? (await connectDocker(env));
  const raw = checkNodeConfig(ref.file, options.environment, ref.name, env);
  const container = nodeContainerName(ref.name, ref.scope);
  if (await docker.isRunning(container)) {
    throw new CliError(
      'state',
      `the node '${ref.name}' (${ref.scope}) is running already (container ${container}); stop it with 'vnode stop -n ${ref.name}'`,
    );
  }
  const layout = nodeLayout(ref, raw, env);
  mkdirSync(layout.dataDir, { recursive: true });
  mkdirSync(nodeAuditDir(layout), { recursive: true, mode: 0o700 });
  mkdirSync(nodeReviewDir(layout), { recursive: true, mode: 0o700 });
  // The audit key is mounted beside the folder: it must be a file on the host before (docs/audit.md, "The key").
  await openAuditKey(auditKeyPath(nodeAuditDir(layout)));
  mkdirSync(layout.logDir, { recursive: true });
  for (const db of layout.databases) {
    if (
      db.hostFile === undefined &&
      ['csv', 'parquet', 'excel'].includes(db.type ?? '') &&
      !options.forceDbMount
    ) {
      throw new CliError(
        'config',
        `${ref.file}: key 'databases' (${db.label}): the ${db.type} file '${db.uri}' does not exist on this host`,
      );
    }
  }
  if ((raw.encryption as { enabled?: boolean } | undefined)?.enabled && !existsSync(layout.privateKey)) {
    // Made here rather than by the node: in the container it could only keep it in the data volume, which every
    // algorithm sees. The node uploads its public key at start.
    const step = progress.step(`creating a private key at ${layout.privateKey}`);
    mkdirSync(dirname(layout.privateKey), { recursive: true });
    await createPrivateKeyFile(layout.privateKey);
    step.succeed('created; the node uploads its public key when it logs in');
  }

  const image = chooseImage('node', options.image, raw);
  await ensureImage(docker, image.ref, progress);
  await warnOnMajorMismatch(docker, image.ref, progress);

  await docker.ensureVolume(nodeDataVolumeName(ref.name, ref.scope), {
    [TYPE_LABEL]: 'node-data',
    name: ref.name,
  });
  await docker.ensureVolume(nodeVpnVolumeName(ref.name, ref.scope), {
    [TYPE_LABEL]: 'node-vpn',
    name: ref.name,
  });
  const setup = nodeContainerSetup(ref, layout, {
    ...(options.develop ? { develop: options.develop } : {}),
    ...(options.forceDbMount ? { forceDbMount: true } : {}),
  });

  await docker.removeContainer(container);
  await docker.run({
    name: container,
    image: image.ref,
    cmd: [
      'vnode-local',
      'start',
      '-c',
      `${IN_CONTAINER.config}/${basename(ref.file)}`,
      '-n',
      ref.name,
      '-e',
      options.environment,
      '--dockerized',
      ref.scope === 'system' ? '--system' : '--user',
    ],
    env: setup.env,
    labels: { [TYPE_LABEL]: 'node', system: ref.scope === 'system' ? 'True' : 'False', name: ref.name },
    binds: setup.binds,
    tty: true,
    autoRemove: !options.keep,
    extraHosts: ['host.docker.internal:host-gateway'],
  });

  let online: boolean | undefined;
  const waitSeconds = options.wait ?? 60;
  if (waitSeconds > 0) online = await waitOnline(docker, container, ref, raw, waitSeconds, progress);
  progress.info(
    `Node '${ref.name}' runs in container ${container}. Follow it with: vnode attach -n ${ref.name}${ref.scope === 'system' ? ' --system' : ''}`,
  );
  if (options.attach) await attachLogs(docker, container);
  return { container, image: image.ref, online };
}

/** The server's API as the node in its container sees it (the configuration's server_url, port and api_path). */
export function nodeSideApi(raw: Record<string, unknown>): string {
  const base = String(raw.server_url).replace(/\/$/, '');
  const port = raw.port === null || raw.port === undefined || raw.port === '' ? '' : `:${String(raw.port)}`;
  return `${base}${port}${typeof raw.api_path === 'string' ? raw.api_path : '/api'}`;
}

/**
 * Waits for the node's own verdict on its start (read from its log: docs/cli.md "What `vnode start` reports") and
 * turns it into a message, advice and exit code.
 */
async function waitOnline(
  docker: DockerEngine,
  container: string,
  ref: InstanceRef,
  raw: Record<string, unknown>,
  seconds: number,
  progress: Progress,
): Promise<boolean> {
  const api = nodeSideApi(raw);
  const setCmd = `vnode set -n ${ref.name}${ref.scope === 'system' ? ' --system' : ''}`;
  const stopCmd = `vnode stop -n ${ref.name}${ref.scope === 'system' ? ' --system' : ''}`;
  const step = progress.step('waiting for the node to come online');
  const tail = docker.tail(container, 400);
  const final = new Set(['ready', 'wrong-key', 'encryption', 'failed']);
  let verdict: NodeVerdict = { kind: 'starting' };
  const describe = (v: NodeVerdict): string => {
    if (v.kind === 'unreachable')
      return `server unreachable at ${v.url ?? api} (${v.error}); retrying (attempt ${v.attempts})`;
    if (v.kind === 'logged-in') return `logged in to ${api}; setting up`;
    return 'starting';
  };
  await waitFor(
    async () => {
      verdict = nodeVerdict(tail.lines());
      return final.has(verdict.kind) ? verdict : undefined;
    },
    {
      timeoutMs: seconds * 1000,
      intervalMs: 500,
      onTick: (ms) => step.update(`${Math.round(ms / 1000)}s: ${describe(verdict)}`),
      stop: async () => !(await docker.isRunning(container)),
    },
  );
  const stillRunning = await docker.isRunning(container);
  if (!stillRunning) await new Promise((r) => setTimeout(r, 300)); // the last lines of a stopped container
  tail.stop();
  verdict = nodeVerdict(tail.lines());
  const lastLines = (): string => tail.lines().slice(-10).join('\n  ');
  switch (verdict.kind) {
    case 'ready':
      step.succeed(`logged in to ${api}; the node takes tasks`);
      return true;
    case 'wrong-key':
      step.fail('the server refused the API key');
      throw new CliError(
        'remote',
        `the server at ${api} refused the node's API key; the node stopped. Ask the server admin for this node's API key and set it with: ${setCmd} api_key=<key>`,
      );
    case 'encryption':
      step.fail('encryption setting does not match the collaboration');
      throw new CliError(
        'config',
        `${verdict.message}; the node stopped. Change it with: ${setCmd} encryption.enabled=<true|false>`,
      );
    case 'failed':
      step.fail('the node stopped');
      throw new CliError('failure', `the node stopped: ${verdict.message}\n  ${lastLines()}`);
    default:
      break;
  }
  if (!stillRunning) {
    step.fail('the container stopped');
    throw new CliError(
      'failure',
      `the node container ${container} stopped. Last log lines:\n  ${lastLines()}`,
    );
  }
  if (verdict.kind === 'unreachable') {
    const url = verdict.url ?? api;
    step.fail(`server unreachable at ${url} (${verdict.error})`);
    throw new CliError(
      'timeout',
      `the node cannot reach the server at ${url} (${verdict.error}) after ${seconds}s. ${unreachableAdvice(String(raw.server_url))}. ` +
        `The node keeps trying; to change its configuration: ${stopCmd}, then ${setCmd} <key>=<value>, then vnode start again.`,
    );
  }
  step.fail(`not online after ${seconds}s (${describe(verdict)})`);
  throw new CliError(
    'timeout',
    `the node did not finish starting within ${seconds}s (it still runs; follow it with vnode attach -n ${ref.name}). Last log lines:\n  ${lastLines()}`,
  );
}
