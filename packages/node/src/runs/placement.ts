/**
 * Where the node keeps its run files and how algorithms reach its proxy: on the host (a host-backed data volume, the
 * proxy on the private network's gateway) or inside the node container (`--dockerized`: the mounted data volume, the
 * node container on the private network as `proxyserver`).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';

import type { NodeConfig } from '../config/node-config.js';
import { StartupError } from '../errors.js';
import type { ContainerRuntime, NetworkInfo } from '../runtime/index.js';
import { dataVolumeName, type NodeNames } from './naming.js';
import { findOwnContainer, OWN_CONTAINER_ENV } from './own-container.js';

/** DNS name of the node container on its private network when the node runs in Docker. */
export const PROXY_ALIAS = 'proxyserver';

/** Where the node keeps run files and how algorithms reach its proxy. */
export interface Placement {
  /** Folder of this process that the data volume shows at /mnt/data in algorithm containers. */
  readonly volumeDir: string;
  readonly dataVolume: string;
  /** Address the proxy listens on. */
  readonly proxyListen: string;
  /** Host part of `HOST` for algorithms. */
  readonly proxyHost: string;
  readonly extraHosts: readonly string[];
}

/** On the host: a data volume backed by `<data dir>/data`, the proxy on the private network's gateway. */
export async function hostPlacement(input: {
  config: NodeConfig;
  runtime: ContainerRuntime;
  names: NodeNames;
  net: NetworkInfo;
  labels: Record<string, string>;
}): Promise<Placement> {
  const { config, runtime, names, net, labels } = input;
  if (config.runtime.kind === 'podman') return podmanHostPlacement(input);
  if (!net.gateway)
    throw new StartupError(
      `the network ${net.name} has no gateway address; remove it ('docker network rm ${net.name}') and start again`,
    );
  const volumeDir = join(config.dataDir, 'data');
  const dataVolume = dataVolumeName(names);
  // The node writes run files here; algorithm containers see them through the volume at /mnt/data.
  await mkdir(volumeDir, { recursive: true, mode: 0o755 });
  await runtime.ensureHostVolume(dataVolume, volumeDir, labels);
  return {
    volumeDir,
    dataVolume,
    proxyListen: net.gateway,
    proxyHost: config.proxyHost ?? 'host.docker.internal',
    extraHosts: config.proxyHost ? [] : [`host.docker.internal:${net.gateway}`],
  };
}

/**
 * On the host with rootless Podman: the same host-backed data volume; the proxy on 127.0.0.1, reached by algorithms
 * as `proxyserver` through the relay container (proxy-relay.ts), since the network's gateway is not the host's.
 */
async function podmanHostPlacement(input: {
  config: NodeConfig;
  runtime: ContainerRuntime;
  names: NodeNames;
  labels: Record<string, string>;
}): Promise<Placement> {
  const { config, runtime, names, labels } = input;
  const volumeDir = join(config.dataDir, 'data');
  const dataVolume = dataVolumeName(names);
  await mkdir(volumeDir, { recursive: true, mode: 0o755 });
  await runtime.ensureHostVolume(dataVolume, volumeDir, labels);
  return {
    volumeDir,
    dataVolume,
    proxyListen: '127.0.0.1',
    proxyHost: config.proxyHost ?? PROXY_ALIAS,
    extraHosts: [],
  };
}

/**
 * In the node container: the data volume (DATA_VOLUME_NAME) is mounted at /mnt/data; the container joins its
 * private network with the alias `proxyserver` (docs/container-environment.md#names-labels-and-networks); the proxy listens on all addresses.
 */
export async function dockerizedPlacement(input: {
  config: NodeConfig;
  runtime: ContainerRuntime;
  names: NodeNames;
  network: string;
  log: Logger;
  env: Readonly<Record<string, string | undefined>>;
}): Promise<Placement> {
  const { config, runtime, names, network, log, env } = input;
  const own = await findOwnContainer(runtime, env);
  if (!own)
    throw new StartupError(
      `--dockerized: cannot find the container this node runs in (set ${OWN_CONTAINER_ENV} to its name, as 'vnode start' does, or run without --dockerized)`,
    );
  await runtime.connectContainerToNetwork(own.id, network, [PROXY_ALIAS]);
  log.info(
    { event: 'network.joined', network, container: own.name, alias: PROXY_ALIAS, via: own.via },
    'the node container joined its private network',
  );
  const dataVolume = config.dataVolumeName ?? dataVolumeName(names);
  await runtime.ensureVolume(dataVolume);
  return {
    volumeDir: config.dataDir,
    dataVolume,
    proxyListen: '0.0.0.0',
    proxyHost: config.proxyHost ?? PROXY_ALIAS,
    extraHosts: [],
  };
}
