/**
 * A stop (SIGTERM) during a node's start stops the node: the process ends with code 0, the server shows it offline,
 * and the next start works (the audit lock was released). A real `vnode-local start` process, signalled at several
 * points of its start; one of them is held deterministically: the test's server keeps the node's socket handshake
 * waiting (a socket.io middleware of the test), so the signal lands while the node waits for its socket. Needs
 * Docker (the node's private network).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ExtendedError } from 'socket.io';

import {
  createFederation,
  createNodeProcess,
  type E2eServer,
  type NodeProcess,
  startE2eServer,
  until,
} from '@federa/testing';

const tag = `sds${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;

let server: E2eServer;
let np: NodeProcess;
let nodeId = 0;

beforeAll(async () => {
  server = await startE2eServer('127.0.0.1');
  const fed = await createFederation(server, false, tag, ['age\n1\n', 'age\n2\n']);
  const org = fed.orgs[0]!;
  nodeId = org.nodeId;
  np = await createNodeProcess({
    mode: 'host',
    name: tag,
    apiKey: org.apiKey,
    serverPort: server.port,
    encrypted: false,
    csv: 'age\n1\n',
  });
}, 60_000);

// A node that ignored its SIGTERM is killed, so that the next case starts from a stopped node.
afterEach(async () => {
  if (!np?.alive()) return;
  np.kill();
  await until(
    'the node to be killed',
    () => np.alive(),
    (alive) => !alive,
    10_000,
  );
});

afterAll(async () => {
  await np?.remove();
  await server?.close();
}, 60_000);

const count = (event: string): number => np.log().filter((l) => l.event === event).length;
const nodeStatus = async (): Promise<string | null> =>
  (await server.api<{ status: string | null }>('GET', `/node/${nodeId}`)).body.status;

/** Waits until the node process has ended by itself (the SIGTERM was obeyed), then checks its exit. */
async function expectStopped(point: string): Promise<void> {
  await until(
    `the node to end after a SIGTERM at ${point}`,
    () => np.alive(),
    (alive) => !alive,
    20_000,
    100,
  );
  expect(np.exitCode(), `exit code after a SIGTERM at ${point}`).toBe(0);
  await until(`the node offline after a SIGTERM at ${point}`, nodeStatus, (s) => s !== 'online', 10_000);
  expect(np.log().filter((l) => l.event === 'node.start_failed')).toEqual([]);
}

describe('a SIGTERM during the start of a node process', () => {
  it.each(['node.starting', 'node.identity', 'vpn.off'])(
    'at %s stops the node',
    async (point) => {
      const before = count(point);
      np.start();
      await until(
        `${point} logged`,
        () => count(point),
        (n) => n > before,
        30_000,
        20,
      );
      np.terminate();
      await expectStopped(point);
    },
    60_000,
  );

  it('while the node waits for its socket stops the node; it is not left online', async () => {
    const held: ((err?: ExtendedError) => void)[] = [];
    let holding = true;
    server.sockets.nsp.use((_socket, next) => {
      if (holding) held.push(next);
      else next();
    });
    try {
      np.start();
      await until(
        'the node socket handshake to arrive',
        () => held.length,
        (n) => n > 0,
        60_000,
        20,
      );
      np.terminate();
      await expectStopped('the socket handshake');
    } finally {
      // Later handshakes are let through (the middleware stays installed, passing them on at once).
      holding = false;
      for (const next of held.splice(0)) next(new Error('held by the test'));
    }
  }, 90_000);

  it('leaves the node able to start again, online and then stopped by a SIGTERM', async () => {
    const ready = count('node.ready');
    np.start();
    await until(
      'node.ready',
      () => count('node.ready'),
      (n) => n > ready,
      60_000,
      100,
    );
    await until('the node online', nodeStatus, (s) => s === 'online', 10_000);
    np.terminate();
    await expectStopped('a running node');
    expect(count('node.stopped')).toBeGreaterThan(0);
  }, 90_000);
});
