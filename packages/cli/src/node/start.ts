/** `vnode start`: runs the node image in Docker (cli-config.md §6.1, with Federa's names). */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { createPrivateKeyFile } from '@federa/common';
import { basename, dirname, extname, isAbsolute, resolve } from 'node:path';
import { checkNodeConfig } from '../config/validate.js';
import type { InstanceRef } from '../config/store.js';
import { connectDocker, type DockerEngine } from '../docker/engine.js';
import { chooseImage, ensureImage, warnOnMajorMismatch } from '../docker/images.js';
import { CliError } from '../exit-codes.js';
import { type Env, instanceDataDir, typeDirs } from '../paths.js';
import { getJson, sendJson, waitFor } from '../util/http.js';
import type { Progress } from '../util/progress.js';
import { attachLogs } from '../server/start.js';
import {
  IN_CONTAINER,
  TYPE_LABEL,
  nodeContainerName,
  nodeDataVolumeName,
  nodeVpnVolumeName,
} from './naming.js';

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

/** The mounts and environment of the node container (cli-config.md §6.1 steps 5–6). */
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
      binds.push(`${host}:/mnt/${inside}:ro`);
      // Relative: `vnode-local start --dockerized` reads it as /mnt/<label><ext> and copies it into the data volume.
      env[key] = inside;
      if (db.label === 'default') env.DATABASE_URI = `/mnt/${inside}`;
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
    step.succeed(
      `created (or run 'vnode create-private-key -n ${ref.name}' to name it after the organization)`,
    );
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
  if (waitSeconds > 0) online = await waitOnline(docker, container, raw, waitSeconds, progress);
  progress.info(
    `Node '${ref.name}' runs in container ${container}. Follow it with: vnode attach -n ${ref.name}${ref.scope === 'system' ? ' --system' : ''}`,
  );
  if (options.attach) await attachLogs(docker, container);
  return { container, image: image.ref, online };
}

/**
 * Waits until the server reports the node online (logging in with the node's API key, as the node does). When the
 * server cannot be reached from this host, only checks that the container keeps running.
 */
async function waitOnline(
  docker: DockerEngine,
  container: string,
  raw: Record<string, unknown>,
  seconds: number,
  progress: Progress,
): Promise<boolean | undefined> {
  const api = hostSideApi(raw);
  const step = progress.step('waiting for the node to come online');
  const tail = docker.tail(container);
  let nodeUrl: string | undefined;
  let token: string | undefined;
  let unreachable = false;
  const status = await waitFor(
    async () => {
      if (!token) {
        try {
          const res = (await sendJson(
            'POST',
            `${api}/token/node`,
            { api_key: raw.api_key },
            { timeoutMs: 3000 },
          )) as { access_token?: string; node_url?: string };
          token = res.access_token;
          nodeUrl = res.node_url;
        } catch (error) {
          unreachable = /fetch failed|ECONNREFUSED|ENOTFOUND|timeout/i.test((error as Error).message);
          if (!unreachable) throw error;
          return undefined;
        }
      }
      const origin = new URL(api).origin;
      const node = (await getJson(`${origin}${nodeUrl ?? ''}`, { token: token ?? '', timeoutMs: 3000 })) as {
        status?: string;
      };
      return node.status === 'online' ? 'online' : undefined;
    },
    {
      timeoutMs: seconds * 1000,
      intervalMs: 1000,
      onTick: (ms) =>
        step.update(
          `${Math.round(ms / 1000)}s${unreachable ? ' (server not reachable from this host yet)' : ''}`,
        ),
      stop: async () => !(await docker.isRunning(container)),
    },
  );
  tail.stop();
  if (status === 'online') {
    step.succeed('the server reports it online');
    return true;
  }
  if (!(await docker.isRunning(container))) {
    step.fail('the container stopped');
    throw new CliError(
      'failure',
      `the node container ${container} stopped. Last log lines:\n  ${tail.lines().slice(-15).join('\n  ')}`,
    );
  }
  step.fail(
    unreachable ? `the server at ${api} cannot be reached from this host` : `not online after ${seconds}s`,
  );
  progress.warn('the node container runs; check its logs with vnode attach');
  return false;
}
