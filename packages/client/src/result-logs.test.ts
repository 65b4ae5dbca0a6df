/**
 * `client.result.logs(id, {follow})` (docs/run-logs.md): the pieces of a run's log as a node streams them, ending
 * when the run has finished. Real server on a free port with its socket; the test plays the node (its socket's
 * `run_log` batches and its REST reports).
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { io as connectClient, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents } from '@federa/common';
import { startE2eServer, type E2eServer } from '@federa/testing';

import { UserClient } from './user-client.js';

let server: E2eServer;

beforeAll(async () => {
  server = await startE2eServer();
});

afterAll(async () => {
  await server?.close();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A task with one run, made active, a researcher's client, and the node's socket that streams the run's log. */
async function activeRun() {
  const { fx, port } = server;
  const org = await fx.organization();
  const collab = await fx.collaboration([org]);
  const node = await fx.node(org, collab);
  const task = await fx.task(collab, [org]);
  const id = task.resultIds[0]!;
  const user = await fx.user(org, { roles: ['Researcher'] });
  const client = new UserClient({ host: 'http://127.0.0.1', port, apiPath: '/api', warn: () => undefined });
  await client.authenticate(user.username, user.password);
  const nodeToken = await node.token();
  const patch = async (body: Record<string, unknown>): Promise<void> => {
    expect((await server.api('PATCH', `/result/${id}`, body, nodeToken)).status).toBe(200);
  };
  await patch({ status: 'active' });
  const socket: Socket<ServerToClientEvents, ClientToServerEvents> = connectClient(
    `http://127.0.0.1:${port}/tasks`,
    {
      forceNew: true,
      reconnection: false,
      transports: ['websocket'],
      extraHeaders: { Authorization: `Bearer ${nodeToken}` },
    },
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  let offset = 0;
  const stream = async (text: string): Promise<void> => {
    const ack = await socket.timeout(5_000).emitWithAck('run_log', { result_id: id, offset, text });
    expect(ack.ok).toBe(true);
    offset = ack.offset;
  };
  /** Counts the client's reads of the run (`GET /result/{id}`). */
  const reads = vi.spyOn(client.result as unknown as { getJson(path: string): Promise<unknown> }, 'getJson');
  const readsOfRun = (): number => reads.mock.calls.filter(([path]) => path === `/result/${id}`).length;
  return { id, client, patch, stream, readsOfRun, close: () => socket.disconnect() };
}

it('follows on run_log_update events: the run is read once at the start and once per event, not on a timer', async () => {
  const { id, client, patch, stream, readsOfRun, close } = await activeRun();
  const pieces: string[] = [];
  // A polling follower would read every 50 ms; this one reads when the server announces a change.
  const following = (async () => {
    for await (const text of client.result.logs(id, { follow: true, intervalMs: 50 })) pieces.push(text);
  })();
  await expect.poll(readsOfRun).toBe(1);
  await sleep(1_000); // the socket's rooms are joined; no event, no read
  expect(readsOfRun()).toBe(1);
  for (const [i, line] of ['one\n', 'two\n', 'three\n'].entries()) {
    await stream(line);
    await expect.poll(() => pieces.length).toBe(i + 1);
    await sleep(400);
    expect(readsOfRun()).toBe(i + 2);
  }
  // The final report is announced too (a researcher's socket gets no status_update): the follow ends at once.
  const reportedAt = Date.now();
  await patch({ status: 'completed', result: '', log: 'one\ntwo\nthree\nfour\n' });
  await following;
  expect(Date.now() - reportedAt).toBeLessThan(2_000);
  close();
  expect(pieces).toEqual(['one\n', 'two\n', 'three\n', 'four\n']);
  // The start, three batches, the final report (its run_log_update and status events wake one read or two).
  expect(readsOfRun()).toBeGreaterThanOrEqual(5);
  expect(readsOfRun()).toBeLessThanOrEqual(6);
});

it('follows by polling every intervalMs without a socket', async () => {
  const { id, client, patch, stream, readsOfRun, close } = await activeRun();
  const pieces: string[] = [];
  const following = (async () => {
    for await (const text of client.result.logs(id, { follow: true, intervalMs: 50, useSocket: false }))
      pieces.push(text);
  })();
  await stream('one\n');
  await expect.poll(() => pieces.join('')).toBe('one\n');
  await sleep(500);
  expect(readsOfRun()).toBeGreaterThanOrEqual(5);
  await patch({ status: 'completed', result: '', log: 'one\ntwo\n' });
  await following;
  close();
  expect(pieces.join('')).toBe('one\ntwo\n');
});

it('follows a run’s log piece by piece while it is active and ends when the run has finished', async () => {
  const { fx, port } = server;
  const org = await fx.organization();
  const collab = await fx.collaboration([org]);
  const node = await fx.node(org, collab);
  const task = await fx.task(collab, [org]);
  const id = task.resultIds[0]!;
  const user = await fx.user(org, { roles: ['Researcher'] });
  const client = new UserClient({ host: 'http://127.0.0.1', port, apiPath: '/api', warn: () => undefined });
  await client.authenticate(user.username, user.password);

  const nodeToken = await node.token();
  const patch = async (body: Record<string, unknown>): Promise<void> => {
    expect((await server.api('PATCH', `/result/${id}`, body, nodeToken)).status).toBe(200);
  };
  await patch({ status: 'active' });
  const socket: Socket<ServerToClientEvents, ClientToServerEvents> = connectClient(
    `http://127.0.0.1:${port}/tasks`,
    {
      forceNew: true,
      reconnection: false,
      transports: ['websocket'],
      extraHeaders: { Authorization: `Bearer ${nodeToken}` },
    },
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });

  // Not followed: the log as it is now, once (nothing yet).
  const now: string[] = [];
  for await (const piece of client.result.logs(id)) now.push(piece);
  expect(now).toEqual([]);

  const pieces: { text: string; at: number }[] = [];
  let ended = 0;
  const following = (async () => {
    for await (const text of client.result.logs(id, { follow: true, intervalMs: 50 }))
      pieces.push({ text, at: Date.now() });
    ended = Date.now();
  })();

  let offset = 0;
  for (const line of ['one\n', 'two\n', 'three\n']) {
    const ack = await socket.timeout(5_000).emitWithAck('run_log', { result_id: id, offset, text: line });
    expect(ack.ok).toBe(true);
    offset = ack.offset;
    await sleep(300);
  }
  const beforeEnd = pieces.map((p) => p.text).join('');
  expect(beforeEnd).toBe('one\ntwo\nthree\n');
  expect(pieces.length).toBeGreaterThanOrEqual(3);
  expect(ended).toBe(0);
  // The final report: the whole log again, with a last line.
  const finishedAt = Date.now();
  await patch({ status: 'completed', result: '', log: 'one\ntwo\nthree\nfour\n' });
  await following;
  socket.disconnect();
  expect(pieces.map((p) => p.text).join('')).toBe('one\ntwo\nthree\nfour\n');
  expect(pieces.at(-1)!.text).toBe('four\n');
  expect(ended).toBeGreaterThanOrEqual(finishedAt);

  // Followed once finished: the whole log, and the iteration ends.
  const after: string[] = [];
  for await (const piece of client.result.logs(id, { follow: true })) after.push(piece);
  expect(after).toEqual(['one\ntwo\nthree\nfour\n']);
});
