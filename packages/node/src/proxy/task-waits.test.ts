/**
 * The proxy's long-poll of a task (`GET /task/{id}?wait=`): answered when the task completes after an event, with
 * the task as it is when the wait runs out, and refused clearly when the wait is malformed or too many are held.
 * The upstream is a small recording server standing in for the API (it counts the proxy's reads of the task);
 * the e2e test (e2e/sub-task-wait.test.ts) runs it with real containers and the real server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DummyCryptor } from '@federa/common';

import { startProxy, type RunningProxy } from './proxy-server.js';
import { RunEvents } from './task-waits.js';

let upstream: Server;
let base: string;
/** The proxy's reads of each task, and whether the task is complete. */
const reads: Record<string, number> = {};
const complete: Record<number, boolean> = {};

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const url = req.url ?? '';
    reads[url] = (reads[url] ?? 0) + 1;
    const m = /^\/api\/task\/(\d+)(\?|$)/.exec(url);
    if (m && Number(m[1]) === 404) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ msg: 'task 404 does not exist' }));
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    const id = Number(m?.[1]);
    res.end(JSON.stringify({ id, complete: complete[id] ?? false, results: [{ id: id * 10 }] }));
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/api`;
});

afterAll(async () => {
  await new Promise<void>((r) => upstream.close(() => r()));
});

let events: RunEvents;
let proxy: RunningProxy;
let url: string;

beforeEach(async () => {
  for (const key of Object.keys(reads)) delete reads[key];
  events = new RunEvents();
  proxy = await startProxy({
    apiBase: base,
    cryptor: new DummyCryptor(),
    log: pino({ level: 'silent' }),
    host: '127.0.0.1',
    port: 0,
    events,
    waits: { maxWaiters: 2, maxWaitSeconds: 2, recheckMs: 60_000 },
  });
  url = `http://127.0.0.1:${proxy.port}`;
  return () => proxy.close();
});

const get = async (
  path: string,
): Promise<{ status: number; wait: string | null; body: Record<string, unknown>; ms: number }> => {
  const t0 = Date.now();
  const r = await fetch(`${url}${path}`, { headers: { authorization: 'Bearer container' } });
  return {
    status: r.status,
    wait: r.headers.get('x-federa-wait'),
    body: (await r.json()) as Record<string, unknown>,
    ms: Date.now() - t0,
  };
};
const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('GET /task/{id}?wait= at the proxy', () => {
  it('answers at once when the task is already complete', async () => {
    complete[1] = true;
    const r = await get('/task/1?wait=30');
    expect(r).toMatchObject({ status: 200, wait: 'complete', body: { id: 1, complete: true } });
    expect(reads['/api/task/1']).toBe(1);
  });

  it('answers when an event about the task says it completed; events about other tasks read nothing', async () => {
    complete[2] = false;
    const waiting = get('/task/2?wait=30');
    await tick(200);
    events.publish({ taskId: 3, resultId: 30 });
    await tick(100);
    expect(reads['/api/task/2']).toBe(1);
    complete[2] = true;
    events.publish({ taskId: 2 });
    const r = await waiting;
    expect(r).toMatchObject({ status: 200, wait: 'complete', body: { id: 2, complete: true } });
    expect(reads['/api/task/2']).toBe(2);
  });

  it("is woken by a status_update naming one of the task's results, and by a reconnection", async () => {
    complete[4] = false;
    const waiting = get('/task/4?wait=30');
    await tick(200);
    events.publish(null);
    await tick(100);
    expect(reads['/api/task/4']).toBe(2);
    complete[4] = true;
    events.publish({ resultId: 40 });
    expect(await waiting).toMatchObject({ wait: 'complete', body: { complete: true } });
    expect(reads['/api/task/4']).toBe(3);
  });

  it('answers with the task as it is when the wait runs out (cut to the limit)', async () => {
    complete[5] = false;
    const r = await get('/task/5?wait=600');
    expect(r).toMatchObject({ status: 200, wait: 'timeout', body: { id: 5, complete: false } });
    expect(r.ms).toBeGreaterThanOrEqual(1900);
    expect(r.ms).toBeLessThan(5000);
  });

  it('passes a refusal of the server on as it is, and keeps the other query parameters', async () => {
    const r = await get('/task/404?wait=5');
    expect(r).toMatchObject({ status: 404, wait: null, body: { msg: 'task 404 does not exist' } });
    complete[6] = true;
    await get('/task/6?include=results&wait=5');
    expect(reads['/api/task/6?include=results']).toBe(1);
  });

  it('refuses a malformed wait, and one wait more than the limit, with a clear message', async () => {
    for (const bad of ['-1', 'soon', '1e9', '']) {
      const r = await get(`/task/1?wait=${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.msg).toMatch(/^wait must be a number of seconds from 0 to 2/);
    }
    complete[7] = false;
    const held = [get('/task/7?wait=2'), get('/task/7?wait=2')];
    await tick(300);
    const refused = await get('/task/7?wait=2');
    expect(refused.status).toBe(503);
    expect(refused.body.msg).toBe(
      'the node proxy already holds 2 waits, its limit; poll GET /task/7 without wait instead',
    );
    // A poll without wait is still answered at once.
    expect(await get('/task/7')).toMatchObject({ status: 200, wait: null, body: { complete: false } });
    expect((await Promise.all(held)).map((r) => r.wait)).toEqual(['timeout', 'timeout']);
    // The held waits are released: a new one is accepted.
    complete[7] = true;
    expect(await get('/task/7?wait=2')).toMatchObject({ status: 200, wait: 'complete' });
  });

  it('lets a wait go when the container hangs up', async () => {
    complete[8] = false;
    const aborted = new AbortController();
    const request = fetch(`${url}/task/8?wait=2`, { signal: aborted.signal }).catch(() => 'gone');
    await tick(200);
    aborted.abort();
    expect(await request).toBe('gone');
    await tick(100);
    // Both slots are free again.
    complete[9] = false;
    const two = await Promise.all([get('/task/9?wait=1'), get('/task/9?wait=1')]);
    expect(two.map((r) => r.status)).toEqual([200, 200]);
  });
});
