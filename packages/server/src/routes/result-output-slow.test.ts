import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, storedFiles, until, type TestApp } from '@federa/testing';

// An output over a slow link (docs/large-results.md): bounded by an idle time, not by http.request_timeout_ms.

let t: TestApp;
let dir: string;
let base: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-output-slow-'));
  t = await startTestApp({
    config: {
      result_store: { type: 'folder', directory: dir, max_mb: 16 },
      http: { request_timeout_ms: 500, headers_timeout_ms: 400, output_idle_timeout_ms: 400 },
    },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api`;
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

const sha = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function run() {
  const org = await t.fx.organization();
  const collab = await t.fx.collaboration([org]);
  const node = await t.fx.node(org, collab);
  const user = await t.fx.user(org, { roles: ['Researcher'] });
  const task = await t.fx.task(collab, [org]);
  return { id: task.resultIds[0] as number, nodeToken: await node.token(), userToken: await user.token() };
}

/** Uploads `data` in `pieces` pieces `gapMs` apart; `stallAfter` pieces: then sends nothing more. */
function upload(
  id: number,
  token: string,
  data: Buffer,
  pieces: number,
  gapMs: number,
  stallAfter?: number,
): Promise<{ status: number; body: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const req = httpRequest(`${base}/result/${id}/output`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/octet-stream',
        'content-length': String(data.length),
        'x-federa-sha256': sha(data),
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ms: Date.now() - started }));
    });
    req.on('error', () => resolve({ status: 0, body: 'connection closed', ms: Date.now() - started }));
    const size = Math.ceil(data.length / pieces);
    void (async () => {
      for (let i = 0; i < pieces; i++) {
        if (i === stallAfter) return;
        if (req.destroyed) return;
        req.write(data.subarray(i * size, (i + 1) * size));
        await sleep(gapMs);
      }
      req.end();
    })();
  });
}

describe('an output over a slow link', () => {
  it('uploads for longer than http.request_timeout_ms while bytes keep coming, and is stored as sent', async () => {
    const r = await run();
    const data = randomBytes(256 * 1024);
    const up = await upload(r.id, r.nodeToken, data, 12, 100);
    expect(up.ms).toBeGreaterThan(1000);
    expect(up.status).toBe(201);
    expect(await storedFiles(dir)).toContain(`result-${r.id}-${sha(data)}`);
    const patch = await t.api('PATCH', `/result/${r.id}`, {
      token: r.nodeToken,
      body: { status: 'completed', result_stored: { sha256: sha(data), size: data.length } },
    });
    expect(patch.status).toBe(200);
    const down = await download(r.id, r.userToken, 0);
    expect(down.complete).toBe(true);
    expect(down.body.equals(data)).toBe(true);
  });

  it('cuts an upload that stops sending after the idle time, and stores nothing', async () => {
    const r = await run();
    const data = randomBytes(256 * 1024);
    const before = await storedFiles(dir);
    const up = await upload(r.id, r.nodeToken, data, 10, 50, 3);
    expect(up.status).toBe(0);
    expect(up.ms).toBeLessThan(5000);
    await until(
      'nothing of the cut upload stored',
      () => storedFiles(dir),
      (f) => f.join() === before.join(),
      10_000,
    );
  });

  it('cuts a download whose reader stops reading after the idle time, and serves a slow steady reader whole', async () => {
    const r = await run();
    const data = randomBytes(12 * 1024 * 1024);
    await upload(r.id, r.nodeToken, data, 1, 0);
    await t.api('PATCH', `/result/${r.id}`, {
      token: r.nodeToken,
      body: { status: 'completed', result_stored: { sha256: sha(data), size: data.length } },
    });
    const stalled = await download(r.id, r.userToken, 3000);
    expect(stalled.complete).toBe(false);
    expect(stalled.body.length).toBeLessThan(data.length);
    const steady = await download(r.id, r.userToken, 0, 80);
    expect(steady.ms).toBeGreaterThan(500);
    expect(steady.complete).toBe(true);
    expect(steady.body.equals(data)).toBe(true);
  });
});

/** Downloads the output; reads the first chunk, then pauses `pauseMs`; `paceMs`: waits that long between chunks. */
function download(
  id: number,
  token: string,
  pauseMs: number,
  paceMs = 0,
): Promise<{ complete: boolean; body: Buffer; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const req = httpRequest(`${base}/result/${id}/output`, {
      headers: { authorization: `Bearer ${token}` },
    });
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let first = true;
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        if (first && pauseMs > 0) {
          first = false;
          res.pause();
          setTimeout(() => res.resume(), pauseMs);
        } else if (paceMs > 0 && chunks.length % 16 === 0) {
          res.pause();
          setTimeout(() => res.resume(), paceMs);
        }
      });
      const done = () =>
        resolve({ complete: res.complete, body: Buffer.concat(chunks), ms: Date.now() - started });
      res.on('end', done);
      res.on('error', done);
      res.on('close', done);
    });
    req.on('error', () => resolve({ complete: false, body: Buffer.alloc(0), ms: Date.now() - started }));
    req.end();
  });
}
