/**
 * How algorithms reach the proxy of a node on the host when rootless Podman runs them. Rootless Podman's networks
 * live in the user's own network namespace: the private network's gateway is not an address of the host, and the
 * internal network has no route to the host at all. So the proxy listens on 127.0.0.1 only, and a relay container
 * on the private network (alias `proxyserver`, nothing else attached) carries each connection to a Unix socket in
 * the node's data folder, which this process forwards to the proxy. The private network keeps no way out but the
 * proxy, and no firewall rule (root) is needed for that.
 */
import { chmod, mkdir, rm } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';

import { StartupError } from '../errors.js';
import type { ContainerRuntime } from '../runtime/index.js';
import type { NodeNames } from './naming.js';
import { PROXY_ALIAS } from './placement.js';

/** The relay runs on the node's base image (the algorithms' own base, present wherever the node runs). */
export const RELAY_IMAGE = 'federa/base-node:local';
const SOCKET_DIR_IN_CONTAINER = '/run/federa-proxy';

export const relayContainerName = (n: NodeNames): string => `${n.prefix}-${n.node}-proxy-relay`;

/** The relay's program: every TCP connection on PORT is piped to the socket. */
const RELAY_SCRIPT = `const net = require('net');
const [port, socket] = process.argv.slice(1);
net.createServer((c) => {
  const u = net.connect(socket);
  c.on('error', () => u.destroy()); u.on('error', () => c.destroy());
  c.pipe(u).pipe(c);
}).listen(Number(port), '0.0.0.0', () => console.log('relay listening on ' + port));`;

export interface ProxyRelay {
  /**
   * `/etc/hosts` entry naming the relay `proxyserver` for algorithm containers. Rootless Podman's networks answer
   * names only with its DNS plug-in (aardvark-dns, or dnsname under CNI), which many installs lack: a lookup of
   * the alias then fails after the resolver's retries (minutes). The entry makes the name independent of DNS.
   */
  readonly hostsEntry: string | undefined;
  close(): Promise<void>;
}

export async function startProxyRelay(input: {
  runtime: ContainerRuntime;
  names: NodeNames;
  network: string;
  /** The node's data folder: the socket's folder is made in it. */
  dataDir: string;
  /** The proxy's port on 127.0.0.1; the relay listens on the same port on the private network. */
  proxyPort: number;
  labels: Record<string, string>;
  log: Logger;
}): Promise<ProxyRelay> {
  const { runtime, names, network, dataDir, proxyPort, labels, log } = input;
  const dir = join(dataDir, 'proxy-relay');
  const socketPath = join(dir, 'proxy.sock');
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await rm(socketPath, { force: true });
  const server = net.createServer((client) => {
    const upstream = net.connect(proxyPort, '127.0.0.1');
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  // The relay's user is the engine's (rootless: the node's own user); the socket only leads to the proxy.
  await chmod(socketPath, 0o666);
  const closeServer = (): Promise<void> => new Promise<void>((resolve) => server.close(() => resolve()));

  const name = relayContainerName(names);
  try {
    await runtime.removeContainerIfExists(name);
    await runtime.runContainer({
      name,
      image: RELAY_IMAGE,
      env: {},
      mounts: [{ source: dir, target: SOCKET_DIR_IN_CONTAINER, type: 'bind' }],
      network,
      networkAliases: [PROXY_ALIAS],
      labels: { ...labels, 'federa.role': 'proxy-relay' },
      cmd: ['node', '-e', RELAY_SCRIPT, String(proxyPort), `${SOCKET_DIR_IN_CONTAINER}/proxy.sock`],
    });
  } catch (cause) {
    await closeServer();
    throw new StartupError(
      `cannot start the proxy relay container ${name} (image ${RELAY_IMAGE}): ${(cause as Error).message}`,
      { cause },
    );
  }
  const address = (await runtime.inspectContainer(name).catch(() => undefined))?.addresses[network];
  log.info(
    { event: 'network.relay', network, container: name, alias: PROXY_ALIAS, address, port: proxyPort },
    'algorithms reach the proxy through the relay container on the private network',
  );
  return {
    hostsEntry: address ? `${PROXY_ALIAS}:${address}` : undefined,
    close: async () => {
      await runtime.removeContainerIfExists(name).catch(() => undefined);
      await closeServer();
      await rm(socketPath, { force: true });
    },
  };
}
