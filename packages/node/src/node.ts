/**
 * The node daemon: logs in, sets up encryption, its private network, data volume and local proxy, then takes
 * open work from the server over socket.io and runs it in containers (docs/node-protocol.md#at-start).
 */
import { join } from 'node:path';

import { setUpEncryption } from './encryption-setup.js';
import { NodeStoppedError, StartupError } from './errors.js';
import { createNodeLogger } from './logger.js';
import { startProxy, type RunningProxy } from './proxy/proxy-server.js';
import { keepProxyPort, proxyPortToUse } from './proxy/proxy-port.js';
import { RunEvents } from './proxy/task-waits.js';
import { NetworkHelpers } from './runs/network-helpers.js';
import { RunManager } from './runs/run-manager.js';
import { OrganizationPins } from './runs/organization-pins.js';
import { columnNames } from './columns.js';
import { storeDeclarationSource } from './output/store-declarations.js';
import { RunStore } from './runs/run-store.js';
import { isolatePrivateNetwork, setUpPrivateNetwork } from './runs/private-network.js';
import { connectRuntime } from './runtime-start.js';
import { RestClient } from './server-client/rest-client.js';
import { NodeVpn, VPN_HELPER_IMAGE } from './vpn/node-vpn.js';
import { PROXY_ALIAS } from './runs/placement.js';
import { startProxyRelay } from './runs/proxy-relay.js';
import { SocketChannel } from './server-client/socket-channel.js';
import {
  listOf,
  type WireNode,
  type WireOrganization,
  type WireResultWithTask,
} from './server-client/wire.js';
import { NODE_VERSION } from './version.js';
import { nodeInfo } from './node-info.js';
import { startTracing } from './tracing/start-tracing.js';
import { NodeAudit } from './audit/node-audit.js';
import { meteredRuntime, NodeMetrics, proxyObserver, serveNodeMetrics } from './metrics/index.js';
import type { RunningNode, StartNodeOptions } from './node-options.js';

export type { RunningNode, StartNodeOptions } from './node-options.js';

export async function startNode(options: StartNodeOptions): Promise<RunningNode> {
  const { config } = options;
  const log = options.log ?? createNodeLogger(config);
  const abort = new AbortController();
  const signal = abort.signal;
  options.signal?.addEventListener('abort', () => abort.abort(), { once: true });
  const cleanups: (() => Promise<void> | void)[] = [];
  const stopAll = async (): Promise<void> => {
    abort.abort();
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
  };
  // A stop during the start ends the start at the next step (after what was set up is registered for clean-up):
  // steps that do not call the server would not notice it otherwise, and the node would come up after its stop.
  const checkpoint = (): void => {
    if (signal.aborted) throw new NodeStoppedError();
  };

  try {
    log.info(
      {
        event: 'node.starting',
        version: NODE_VERSION,
        name: config.name,
        environment: config.environment,
        server: config.apiBase,
        file: config.file,
      },
      'node starting',
    );
    for (const key of config.ignoredKeys)
      log.info({ event: 'config.ignored', key }, `the configuration key '${key}' has no effect in Federa`);

    const metrics = new NodeMetrics();
    const traces = startTracing(config, options, log, cleanups);
    const runtime = meteredRuntime(await connectRuntime(config, log, options.runtime, checkpoint), metrics);

    const rest = new RestClient({
      apiBase: config.apiBase,
      apiKey: config.apiKey,
      log: log.child({ component: 'rest' }),
      signal,
      onBytes: metrics.countServerBytes,
      traceparent: traces.traceparent,
    });
    cleanups.push(() => rest.close());
    const nodeId = await rest.login();
    const me = await rest.get<WireNode>(`/node/${nodeId}`);
    if (!me.collaboration) throw new StartupError(`node ${nodeId} belongs to no collaboration`);
    const identity = { nodeId, organizationId: me.organization.id, collaborationId: me.collaboration.id };
    const org = await rest.get<WireOrganization>(`/organization/${identity.organizationId}`);
    log.info(
      { event: 'node.identity', node_id: nodeId, node_name: me.name, organization: org.name, ...identity },
      'identity known',
    );

    // The names of allowed_organizations, pinned to ids now: a rename afterwards never widens the policy.
    const organizations = await OrganizationPins.pin(
      (config.allowedOrganizations ?? []).filter((o): o is string => typeof o === 'string'),
      async (name) => listOf<WireOrganization>(await rest.get('/organization', { name })),
      log,
    );

    // Nothing runs unaudited: a node whose audit log cannot be written does not start (docs/audit.md).
    let audit: NodeAudit;
    try {
      audit = await NodeAudit.open(config.auditDir, log, {
        node_id: nodeId,
        node_name: me.name,
        organization_id: identity.organizationId,
        organization_name: org.name,
        collaboration_id: identity.collaborationId,
      });
    } catch (cause) {
      throw new StartupError(`the audit log cannot be used: ${(cause as Error).message}`, { cause });
    }
    cleanups.push(() => audit.close());
    checkpoint();

    const cryptor = await setUpEncryption({
      rest,
      log,
      collaborationId: identity.collaborationId,
      organizationId: identity.organizationId,
      enabled: config.encryption.enabled,
      privateKeyPath: config.encryption.privateKeyPath,
      configFile: config.file,
      ...(options.keyGeneration ? { generate: options.keyGeneration } : {}),
    });
    checkpoint();

    // Private network, data volume, databases, linked services.
    const privateNetwork = await setUpPrivateNetwork({
      config,
      runtime,
      log,
      env: options.env ?? process.env,
    });
    checkpoint();
    const { names, network, net, placement } = privateNetwork;
    const { volumeDir, dataVolume } = placement;

    // On the host the proxy listens on the gateway (reachable from the private network, not from elsewhere); in
    // Docker on every address of the node container, which the private network reaches as `proxyserver`.
    let proxy: RunningProxy;
    const runEvents = new RunEvents();
    const listen = (port: number): Promise<RunningProxy> =>
      startProxy({
        apiBase: config.apiBase,
        cryptor,
        log: log.child({ component: 'proxy' }),
        host: placement.proxyListen,
        port,
        events: runEvents,
        observe: proxyObserver(metrics),
        traces,
      });
    try {
      const port = await proxyPortToUse(config.proxyPort, config.dataDir);
      // The port of the last start may have been taken meanwhile: then the system chooses again.
      proxy = await listen(port).catch((error: unknown) => {
        if (port === config.proxyPort) throw error;
        return listen(config.proxyPort);
      });
      await keepProxyPort(config.proxyPort, config.dataDir, proxy.port);
    } catch (cause) {
      throw new StartupError(
        `the local proxy cannot listen on ${placement.proxyListen}:${config.proxyPort}: ${(cause as Error).message}; set proxy_port (or PROXY_SERVER_PORT) to a free port`,
        { cause },
      );
    }
    cleanups.push(() => proxy.close());
    let relayHosts: string[] = [];
    if (config.runtime.kind === 'podman' && !config.dockerized) {
      const relay = await startProxyRelay({
        runtime,
        names,
        network,
        dataDir: config.dataDir,
        proxyPort: proxy.port,
        labels: { 'federa.node': config.name, 'vantage6-type': 'node-resource' },
        log,
      });
      cleanups.push(() => relay.close());
      if (relay.hostsEntry && placement.proxyHost === PROXY_ALIAS) relayHosts = [relay.hostsEntry];
    }
    const unguard = await isolatePrivateNetwork({ config, privateNetwork, proxyPort: proxy.port, log });
    if (unguard) cleanups.push(unguard);
    checkpoint();
    const { proxyHost } = placement;
    const extraHosts = [...placement.extraHosts, ...relayHosts];

    // The VPN between algorithms: only with vpn_subnet, and only when the server offers one (docs/vpn.md).
    let vpn: NodeVpn | null = null;
    if (config.vpnSubnet && net.subnet) {
      try {
        vpn = await NodeVpn.start({
          runtime,
          rest,
          names,
          nodeId,
          network,
          networkSubnet: net.subnet,
          vpnSubnet: config.vpnSubnet,
          log: log.child({ component: 'vpn' }),
        });
      } catch (error) {
        log.error(
          { event: 'vpn.unavailable', err: (error as Error).message },
          'could not connect to the VPN: algorithms run without algorithm-to-algorithm traffic',
        );
      }
      const connected = vpn;
      if (connected) cleanups.push(() => connected.close());
    } else
      log.info({ event: 'vpn.off' }, 'no vpn_subnet in the configuration: the node does not use the VPN');

    const store = await RunStore.open(join(config.dataDir, 'runs.json'));
    const helpers = new NetworkHelpers({
      runtime,
      names,
      network,
      extraHosts,
      log: log.child({ component: 'helpers' }),
      ...(vpn ? { capAdd: ['NET_ADMIN'], image: VPN_HELPER_IMAGE } : {}),
    });
    cleanups.push(() => helpers.close());
    checkpoint();
    // eslint-disable-next-line prefer-const
    let socket: SocketChannel | undefined;
    const runs = new RunManager({
      runtime,
      rest,
      cryptor,
      config,
      names,
      identity,
      volumeDir,
      dataVolume,
      network,
      proxyHost,
      proxyPort: proxy.port,
      extraHosts,
      store,
      organizations,
      log,
      signal,
      helpers,
      vpn,
      audit,
      // Declared outputs come from the stores the node trusts, when its output policy checks them.
      ...(config.outputPolicy && config.allowedAlgorithmStores?.length
        ? { declarations: storeDeclarationSource(config.allowedAlgorithmStores) }
        : {}),
      traces,
      emitStatus: (change) => socket?.emitStatus(metrics.countRunStatus(change)),
      sendLog: (batch) =>
        socket ? socket.sendRunLog(batch) : Promise.reject(new Error('not connected to the server')),
    });
    await runs.reattach();
    checkpoint();

    let syncing: Promise<void> = Promise.resolve();
    const fetchOpen = (query: Record<string, string | number>): Promise<void> => {
      const next = syncing.then(async () => {
        const since = Date.now();
        const items = listOf<WireResultWithTask>(
          await rest.get('/result', { state: 'open', include: 'task', node_id: nodeId, ...query }),
        );
        let taken = 0;
        for (const item of items) if (runs.accept(item, since)) taken++;
        log.info({ event: 'sync', open: items.length, started: taken, ...query }, 'open work fetched');
      });
      syncing = next.catch(() => undefined);
      return next;
    };
    const background = (p: Promise<unknown>, what: string): void => {
      p.catch((e: unknown) => {
        if (!(e instanceof NodeStoppedError))
          log.error({ event: 'node.error', what, err: String(e) }, `${what} failed`);
      });
    };

    const columns = config.shareColumnNames ? await columnNames(config.databases) : {};
    socket = new SocketChannel({
      serverBase: config.serverBase,
      token: rest.accessToken,
      log: log.child({ component: 'socket' }),
      handlers: {
        onConnect: () => {
          metrics.countConnect();
          // Events may have been missed while the socket was away: every waiting sub-task is read again.
          runEvents.publish(null);
          // The configuration (share_config) and the column names of the file databases (share_column_names).
          const info = { ...(config.shareConfig ? nodeInfo(config) : {}), ...columns };
          if (Object.keys(info).length > 0) socket?.emitNodeInfo(info);
          background(fetchOpen({}), 'resynchronisation');
          // Runs the server killed while this node was away (offline, or restarting) stop now.
          background(runs.reconcile(), 'reconciliation of runs in progress');
        },
        onNewTask: (taskId) => background(fetchOpen({ task_id: taskId }), `fetching task ${taskId}`),
        onExpiredToken: () =>
          background(
            rest.refreshTokens().then(() => socket?.reconnect()),
            'token refresh',
          ),
        onKill: (payload) => background(runs.kill(payload), 'kill'),
        onRunChange: (change) => runEvents.publish(change),
      },
    });
    rest.onToken((token) => socket?.setToken(token));
    const channel = socket;
    cleanups.push(() => channel.close());
    const served = await serveNodeMetrics({ config, metrics, log, runtime, names, runs, channel, cleanups });

    await new Promise<void>((resolve, reject) => {
      const timeout = setTimeout(
        () =>
          reject(
            new StartupError(
              `no socket connection to ${config.serverBase} within ${(options.connectTimeoutMs ?? 60_000) / 1000} s`,
            ),
          ),
        options.connectTimeoutMs ?? 60_000,
      );
      const stopped = (): void => {
        clearTimeout(timeout);
        clearInterval(check);
        reject(new NodeStoppedError());
      };
      const check = setInterval(() => {
        if (channel.connected) {
          clearTimeout(timeout);
          clearInterval(check);
          signal.removeEventListener('abort', stopped);
          resolve();
        }
      }, 20);
      signal.addEventListener('abort', stopped, { once: true });
      channel.connect();
    });
    checkpoint();
    log.info(
      {
        event: 'node.ready',
        node_id: nodeId,
        proxy: `${proxy.host}:${proxy.port}`,
        network,
        volume: dataVolume,
      },
      'node ready',
    );

    let stopped = false;
    return {
      ...identity,
      proxy: { host: proxy.host, port: proxy.port },
      metricsUrl: served?.url ?? null,
      runs,
      sync: () => fetchOpen({}),
      stop: async () => {
        if (stopped) return;
        stopped = true;
        log.info(
          { event: 'node.stopping', running: runs.activeRuns },
          'node stopping; running algorithms keep running and are reattached at the next start',
        );
        await stopAll();
        log.info({ event: 'node.stopped' }, 'node stopped');
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
