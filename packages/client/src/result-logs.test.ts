/**
 * `client.result.logs(id, {follow})` (docs/run-logs.md): the pieces of a run's log as a node streams them, ending
 * when the run has finished. Real server on a free port with its socket; the test plays the node (its socket's
 * `run_log` batches and its REST reports).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
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

it('follows a run’s log piece by piece while it is active and ends when the run has finished', async () => {
  const { t, port } = server;
  const org = await t.fx.organization();
  const collab = await t.fx.collaboration([org]);
  const node = await t.fx.node(org, collab);
  const task = await t.fx.task(collab, [org]);
  const id = task.resultIds[0]!;
  const user = await t.fx.user(org, { roles: ['Researcher'] });
  const client = new UserClient({ host: 'http://127.0.0.1', port, apiPath: '/api', warn: () => undefined });
  await client.authenticate(user.username, user.password);

  const nodeToken = await node.token();
  const patch = async (body: Record<string, unknown>): Promise<void> => {
    expect((await t.api('PATCH', `/result/${id}`, { token: nodeToken, body })).status).toBe(200);
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
