/**
 * `client.waitForResults` of a Researcher (docs/client-typescript.md, docs/socket-protocol.md#audiences): a
 * Researcher holds only *event view organization*, so their socket is in their organization's room only; the events
 * of the runs of the task their organization posted reach it there even when the runs are other organizations'. The
 * wait reads the task once per event, and not on a timer. Real server on a free port with its socket; the test plays
 * the nodes (their REST reports).
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startE2eServer, type E2eServer } from '@federa/testing';

import { UserClient } from './user-client.js';

let server: E2eServer;

beforeAll(async () => {
  server = await startE2eServer();
});

afterAll(async () => {
  await server?.close();
});

it("a Researcher's wait completes on the events of runs at other organizations, one read per event", async () => {
  const { fx, port } = server;
  // The researcher's organization posts the task and runs nothing; two other members run it.
  const own = await fx.organization();
  const stations = [await fx.organization(), await fx.organization()];
  const collab = await fx.collaboration([own, ...stations]);
  const nodeTokens = [
    await (await fx.node(stations[0]!, collab)).token(),
    await (await fx.node(stations[1]!, collab)).token(),
  ];
  const task = await fx.task(collab, stations, { initiatorId: own });
  const user = await fx.user(own, { roles: ['Researcher'] });
  const client = new UserClient({ host: 'http://127.0.0.1', port, apiPath: '/api', warn: () => undefined });
  await client.authenticate(user.username, user.password);
  const patch = async (run: 0 | 1, body: Record<string, unknown>): Promise<void> => {
    const r = await server.api('PATCH', `/result/${task.resultIds[run]!}`, body, nodeTokens[run]!);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };
  /** Counts the wait's reads of the task (`GET /task/{id}`). */
  const reads = vi.spyOn(client.task as unknown as { getJson(path: string): Promise<unknown> }, 'getJson');
  const readsOfTask = (): number => reads.mock.calls.filter(([path]) => path === `/task/${task.id}`).length;

  // Polling alone would look again only after 5 minutes (the safety interval of a 60 s interval).
  const started = Date.now();
  const stop = new AbortController();
  const waiting = client.waitForResults(task.id, {
    intervalMs: 60_000,
    timeoutMs: 30_000,
    signal: stop.signal,
  });
  let results;
  try {
    await expect.poll(readsOfTask).toBe(1); // the socket is connected, then the task read once
    await new Promise((r) => setTimeout(r, 300)); // the socket's rooms are joined

    await patch(0, { status: 'active' });
    await expect.poll(readsOfTask).toBe(2);
    await patch(0, { status: 'completed', result: '', log: 'one' });
    await expect.poll(readsOfTask).toBe(3);
    await patch(1, { status: 'completed', result: '', log: 'two' });
    results = await waiting;
  } finally {
    // A failed step leaves no wait behind to outlive the server.
    stop.abort();
    await waiting.catch(() => undefined);
  }

  expect(Date.now() - started).toBeLessThan(20_000);
  expect(readsOfTask()).toBe(4);
  expect(results.map((r) => [r.id, r.status, r.log])).toEqual([
    [task.resultIds[0], 'completed', 'one'],
    [task.resultIds[1], 'completed', 'two'],
  ]);
});
