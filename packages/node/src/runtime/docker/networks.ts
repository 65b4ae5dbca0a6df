/** Bridge networks on the Docker engine (ContainerRuntime's network part). */
import type Docker from 'dockerode';

import type { EnsureResult, NetworkInfo, NetworkOptions } from '../container-runtime.js';
import { ContainerRuntimeError, RuntimeNotFoundError, engineMessage, engineStatusCode } from '../errors.js';
import type { Engine } from './engine.js';

export async function inspectNetwork(engine: Engine, name: string): Promise<NetworkInfo | undefined> {
  const info = await engine.maybe(
    'inspectNetwork',
    { network: name },
    async () => (await engine.docker.getNetwork(name).inspect()) as Docker.NetworkInspectInfo,
  );
  // Inspect also matches id prefixes: only an exact name (or full id) counts.
  if (info === undefined || (info.Name !== name && info.Id !== name)) return undefined;
  const ipam = info.IPAM?.Config?.[0];
  return {
    id: info.Id,
    name: info.Name,
    internal: info.Internal,
    gateway: ipam?.Gateway,
    subnet: ipam?.Subnet,
    containers: Object.values(info.Containers ?? {}).map((c) => c.Name),
  };
}

export async function ensureNetwork(
  engine: Engine,
  name: string,
  options: NetworkOptions,
): Promise<EnsureResult> {
  const existing = await inspectNetwork(engine, name);
  if (existing !== undefined) {
    if (existing.internal !== options.internal) {
      engine.logger?.warn(
        { network: name, internal: existing.internal, wanted: options.internal },
        'network exists with another "internal" setting; kept as is',
      );
    }
    return { name, created: false };
  }
  return engine.call('ensureNetwork', { network: name }, async () => {
    try {
      await engine.docker.createNetwork({
        Name: name,
        Driver: 'bridge',
        Internal: options.internal,
        Attachable: true,
        CheckDuplicate: true,
        Labels: { ...(options.labels ?? {}) },
      });
      return { name, created: true };
    } catch (err) {
      // Created concurrently by someone else: fine.
      if (engineStatusCode(err) === 409 && (await inspectNetwork(engine, name)) !== undefined)
        return { name, created: false };
      throw err;
    }
  });
}

export async function removeNetwork(engine: Engine, name: string): Promise<void> {
  const info = await inspectNetwork(engine, name);
  if (info === undefined) return;
  const network = engine.docker.getNetwork(info.id);
  for (const container of info.containers) {
    await engine.maybe('removeNetwork', { network: name, container }, () =>
      network.disconnect({ Container: container, Force: true }),
    );
  }
  await engine.maybe('removeNetwork', { network: name }, () => network.remove());
}

export async function connectContainerToNetwork(
  engine: Engine,
  containerIdOrName: string,
  network: string,
  aliases: readonly string[] = [],
): Promise<void> {
  const context = { container: containerIdOrName, network };
  const info = await engine.call('connectContainerToNetwork', context, () =>
    engine.docker.getContainer(containerIdOrName).inspect(),
  );
  if (info.NetworkSettings.Networks[network] !== undefined) return;
  await engine.call('connectContainerToNetwork', context, async () => {
    try {
      await engine.docker
        .getNetwork(network)
        .connect({ Container: containerIdOrName, EndpointConfig: { Aliases: [...aliases] } });
    } catch (err) {
      // "endpoint ... already exists": attached concurrently.
      if (engineStatusCode(err) === 403 && /already exists/.test(engineMessage(err))) return;
      throw err;
    }
  });
}

export async function disconnectContainerFromNetwork(
  engine: Engine,
  containerIdOrName: string,
  network: string,
): Promise<void> {
  try {
    await engine.call('disconnectContainerFromNetwork', { container: containerIdOrName, network }, () =>
      engine.docker.getNetwork(network).disconnect({ Container: containerIdOrName, Force: true }),
    );
  } catch (err) {
    if (err instanceof RuntimeNotFoundError) return;
    // "container ... is not connected to network ..."
    if (err instanceof ContainerRuntimeError && /not connected/.test(err.message)) return;
    throw err;
  }
}
