/**
 * One suite for the ContainerRuntime interface, run against every implementation on this machine's real engines:
 * Docker (root daemon) and rootless Podman (an unprivileged user's API socket). This file: networks and isolation (internal
 * networks, aliases, shared network namespaces, the host seen from inside); conformance.test.ts: containers.
 * Prerequisites (a missing one fails the suite with what to run; nothing is skipped):
 *   scripts/docker-engine.sh, scripts/build-images.sh     Docker and federa/base-node:local, federa/helper:local
 *   scripts/podman-rootless.sh                            the user federa-podman, its API socket, the images
 * Runs as root: the "outside" server lives in a network namespace of its own behind a veth pair.
 * Everything created carries a unique prefix and is removed in afterAll. Shared parts:
 * @federa/testing (container-engines.ts, outside-network.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HELPER_IMAGE,
  HTTP_GET_RETRY,
  NODE_IMAGE,
  TCP_PROBE,
  TEST_LABEL,
  cleanUp,
  containerEngines,
  engineKit,
  hostAddress,
  removeEngineObjects,
  requireEngine,
  runPrefix,
  startOutside,
  tcpServer,
  type Cleanups,
} from '@federa/testing';

const RUN = runPrefix();
const cleanups: Cleanups = [];
let outsideAddr = '';
let outsidePort = 0;

beforeAll(async () => {
  ({ outsideAddr, outsidePort } = await startOutside(RUN, cleanups));
});

afterAll(() => cleanUp(cleanups));

describe.each(containerEngines())('ContainerRuntime on $kind: networks', (engine) => {
  const { runtime } = engine;
  const prefix = `${RUN}-${engine.kind}`;
  const { spec, runToEnd } = engineKit(engine, prefix, cleanups);

  beforeAll(() => requireEngine(engine));
  afterAll(() => removeEngineObjects(runtime, prefix));

  it('an internal network has no way out, but reaches the other containers on it by alias', async () => {
    const internal = `${prefix}-net`;
    const open = `${prefix}-open-net`;
    expect(
      await runtime.ensureNetwork(internal, { internal: true, labels: { [TEST_LABEL]: prefix } }),
    ).toEqual({
      name: internal,
      created: true,
    });
    expect((await runtime.ensureNetwork(internal, { internal: true })).created).toBe(false);
    await runtime.ensureNetwork(open, { internal: false });
    const info = await runtime.inspectNetwork(internal);
    expect(info).toMatchObject({ name: internal, internal: true });
    const gateway = info?.gateway ?? '';
    expect(gateway).toMatch(/^\d+\.\d+\.\d+\.\d+$/);

    // Servers of ours on the host: one on 127.0.0.1 only, reached at the gateway (stays private), the "outside" one
    // behind the host's routing (unreachable from the internal network, reachable from a normal one).
    const loopbackOnly = await tcpServer('127.0.0.1');
    cleanups.push(loopbackOnly.close);
    const probe = (name: string, network: string, host: string, port: number) =>
      runToEnd(spec(name, ['node', '-e', TCP_PROBE, host, String(port)], { network }));
    const [blocked, control, loopback] = await Promise.all([
      probe('probe-internal', internal, outsideAddr, outsidePort),
      probe('probe-open', open, outsideAddr, outsidePort),
      probe('probe-loopback', internal, gateway, loopbackOnly.port),
    ]);
    expect(blocked.exitCode, blocked.logs).not.toBe(0);
    expect(blocked.logs).not.toMatch(/connected/);
    expect(control).toMatchObject({ exitCode: 0, logs: 'connected\n' }); // the target itself is reachable
    expect(loopback.logs).not.toMatch(/connected/);

    // The proxy as a container on the network with alias `proxyserver` (the node in a container).
    const proxy = await runtime.runContainer(
      spec(
        'proxy',
        ['node', '-e', `require('http').createServer((q, r) => r.end('proxy-ok ' + q.url)).listen(8080)`],
        {
          network: internal,
          networkAliases: ['proxyserver'],
        },
      ),
    );
    const direct = await runToEnd(
      spec('client', ['node', '-e', HTTP_GET_RETRY, 'http://proxyserver:8080/task'], { network: internal }),
    );
    expect(direct).toMatchObject({ exitCode: 0, logs: 'body:proxy-ok /task\n' });

    // The algorithm pattern: a helper holds the network namespace, the algorithm joins it.
    const helper = await runtime.runContainer(
      spec('helper', ['sleep', 'infinity'], { image: HELPER_IMAGE, network: internal }),
    );
    const algo = await runToEnd(
      spec('algo', ['node', '-e', HTTP_GET_RETRY, 'http://proxyserver:8080/result/1'], {
        network: `container:${helper.id}`,
      }),
    );
    expect(algo).toMatchObject({ exitCode: 0, logs: 'body:proxy-ok /result/1\n' });

    // A service container attached afterwards under an alias (node config `container_services`).
    const service = await runtime.runContainer(
      spec('service', ['node', '-e', `require('http').createServer((q, r) => r.end('db')).listen(5432)`], {
        network: open,
      }),
    );
    await runtime.connectContainerToNetwork(service.name, internal, ['database']);
    await runtime.connectContainerToNetwork(service.name, internal, ['database']); // again: no error
    const viaAlias = await runToEnd(
      spec('client2', ['node', '-e', HTTP_GET_RETRY, 'http://database:5432/'], { network: internal }),
    );
    expect(viaAlias).toMatchObject({ exitCode: 0, logs: 'body:db\n' });
    await runtime.disconnectContainerFromNetwork(service.name, internal);
    await runtime.disconnectContainerFromNetwork(service.name, internal); // again: no error
    expect((await runtime.inspectNetwork(internal))?.containers).not.toContain(service.name);

    for (const h of [proxy, helper, service]) await runtime.remove(h);
    // removeNetwork disconnects what is still attached.
    const leftover = await runtime.runContainer(
      spec('leftover', ['sleep', 'infinity'], { image: HELPER_IMAGE, network: internal }),
    );
    await runtime.removeNetwork(internal);
    await runtime.removeNetwork(internal); // idempotent
    expect(await runtime.inspectNetwork(internal)).toBeUndefined();
    await runtime.remove(leftover);
  });
});

/** Where the engines differ: what a container on an internal network reaches of the host itself. */
describe('host services seen from an internal network', () => {
  it.each(containerEngines())(
    '$kind: a server on the host address answers only where the engine lets it',
    async ({ kind, runtime }) => {
      const network = `${RUN}-${kind}-hostnet`;
      await runtime.ensureNetwork(network, { internal: true });
      const server = await tcpServer('0.0.0.0');
      try {
        const handle = await runtime.runContainer({
          name: `${RUN}-${kind}-hostprobe`,
          image: NODE_IMAGE,
          env: {},
          mounts: [],
          labels: { [TEST_LABEL]: RUN },
          network,
          cmd: ['node', '-e', TCP_PROBE, hostAddress(), String(server.port)],
        });
        await runtime.waitForExit(handle, { timeoutMs: 20_000 });
        const logs = await runtime.logs(handle);
        await runtime.remove(handle);
        // Docker's internal bridge lives in the host's own namespace: the host's services are reachable (the node's
        // host guard closes that); rootless Podman's lives in the user's namespace: no route to the host at all.
        if (kind === 'docker') expect(logs).toBe('connected\n');
        else expect(logs).not.toMatch(/connected/);
      } finally {
        await server.close();
        await runtime.removeNetwork(network);
      }
    },
  );
});
