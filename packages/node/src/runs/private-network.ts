/**
 * Where the node's algorithms run: its private (internal) network, the data volume and where run files go
 * (placement.ts), the file databases copied into it, the linked service containers attached to it, and, on the
 * host, the firewall that lets algorithms reach the proxy and nothing else of the host (host-guard.ts).
 */
import type { Logger } from 'pino';

import type { NodeConfig } from '../config/node-config.js';
import { StartupError } from '../errors.js';
import type { ContainerRuntime, NetworkInfo } from '../runtime/index.js';
import { installHostGuard } from './host-guard.js';
import { networkName, type NodeNames } from './naming.js';
import { dockerizedPlacement, hostPlacement, type Placement } from './placement.js';
import { copyFileDatabases } from './run-files.js';

export interface PrivateNetwork {
  readonly names: NodeNames;
  readonly network: string;
  readonly net: NetworkInfo;
  readonly placement: Placement;
}

/** Creates (or finds) the network, the data volume and what algorithms see on them. */
export async function setUpPrivateNetwork(input: {
  config: NodeConfig;
  runtime: ContainerRuntime;
  log: Logger;
  env: Readonly<Record<string, string | undefined>>;
}): Promise<PrivateNetwork> {
  const { config, runtime, log, env } = input;
  const names: NodeNames = { prefix: config.dockerPrefix, node: config.name };
  const network = networkName(names);
  const labels = { 'federa.node': config.name, 'vantage6-type': 'node-resource' };
  await runtime.ensureNetwork(network, { internal: true, labels });
  const net = await runtime.inspectNetwork(network);
  if (!net) throw new StartupError(`the network ${network} disappeared right after it was made`);
  const placement = config.dockerized
    ? await dockerizedPlacement({ config, runtime, names, network, log, env })
    : await hostPlacement({ config, runtime, names, net, labels });
  const copied = await copyFileDatabases(placement.volumeDir, config.databases);
  for (const file of copied)
    log.info({ event: 'database.copied', file }, 'file database copied into the data volume');
  for (const [alias, container] of Object.entries(config.containerServices)) {
    await runtime.connectContainerToNetwork(container, network, [alias]).then(
      () =>
        log.info({ event: 'service.attached', alias, container }, 'service attached to the private network'),
      (e: unknown) =>
        log.error(
          { event: 'service.attach_failed', alias, container, err: (e as Error).message },
          'cannot attach a service container to the private network',
        ),
    );
  }
  return { names, network, net, placement };
}

/**
 * Lets algorithms reach the proxy and nothing else: inside Docker, and with rootless Podman, the internal network
 * does it alone (Podman's through the proxy relay, proxy-relay.ts); on the host
 * firewall rules keep them from the host's other services (when they can be installed: root and iptables).
 * Returns what removes the rules at the node's stop.
 */
export async function isolatePrivateNetwork(input: {
  config: NodeConfig;
  privateNetwork: PrivateNetwork;
  proxyPort: number;
  log: Logger;
}): Promise<(() => Promise<void>) | undefined> {
  const { config, log, proxyPort } = input;
  const { names, network, net, placement } = input.privateNetwork;
  if (config.dockerized || config.runtime.kind === 'podman') {
    // Rootless Podman's internal network has no route to the host at all (conformance.test.ts): nothing to guard.
    log.info(
      { event: 'network.isolated', network },
      'algorithms on the internal network reach the proxy (proxyserver) and nothing else',
    );
    return undefined;
  }
  const guard = await installHostGuard({
    networkId: net.id,
    gateway: placement.proxyListen,
    proxyPort,
    tag: `federa-guard-${names.prefix}-${names.node}`,
  });
  if (!guard.active) {
    log.warn(
      { event: 'network.unguarded', network, reason: guard.reason },
      'cannot install the host firewall rules (needs root and iptables): algorithms can reach services of this host that listen on all addresses',
    );
    return undefined;
  }
  log.info(
    { event: 'network.guarded', network },
    'algorithms on the private network can reach the proxy and nothing else of this host',
  );
  return () => guard.remove();
}
