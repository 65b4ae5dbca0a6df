/**
 * An output held in the result store, as vantage6 4.14's client reads it at /v4/api: `/result` shows
 * `blob_storage_used` true with a UUID in `result`, and `/blobstream/{uuid}` streams the output byte for byte to
 * those who may see the result, and to no one else.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
let dir: string;
let base: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-v4-blob-'));
  t = await startTestApp({ config: { result_store: { type: 'folder', directory: dir, max_mb: 8 } } });
  // An upload is read from the request as a stream: sent over a real connection, as a node sends it.
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

const sha = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

async function get(path: string, token: string) {
  const res = await t.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, raw: res.rawPayload, headers: res.headers };
}

async function world() {
  const org = await t.fx.organization();
  const collab = await t.fx.collaboration([org]);
  const node = await t.fx.node(org, collab);
  const user = await t.fx.user(org, { roles: ['Researcher'] });
  const outsider = await t.fx.user(await t.fx.organization(), { roles: ['Researcher'] });
  const task = await t.fx.task(collab, [org]);
  return {
    id: task.resultIds[0] as number,
    taskId: task.id,
    nodeToken: await node.token(),
    userToken: await user.token(),
    outsiderToken: await outsider.token(),
  };
}

async function storeOutput(w: Awaited<ReturnType<typeof world>>, data: Buffer): Promise<void> {
  const up = await fetch(`${base}/api/result/${w.id}/output`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${w.nodeToken}`,
      'content-type': 'application/octet-stream',
      'x-federa-sha256': sha(data),
    },
    body: data,
  });
  expect(up.status).toBe(201);
  const done = await t.api('PATCH', `/result/${w.id}`, {
    token: w.nodeToken,
    body: { status: 'completed', result_stored: { sha256: sha(data), size: data.length } },
  });
  expect(done.status).toBe(200);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('an output held in the result store, at the vantage6 4.x surface', () => {
  it('is shown as a blob and streamed byte for byte from /blobstream', async () => {
    const w = await world();
    const data = Buffer.from(`RUs=$SVY=$${randomBytes(3 * 1024 * 1024).toString('base64')}`, 'latin1');
    await storeOutput(w, data);
    const one = await get(`/v4/api/result/${w.id}`, w.userToken);
    expect(one.status).toBe(200);
    const shown = JSON.parse(one.raw.toString()) as { result: string; blob_storage_used: boolean };
    expect(shown.blob_storage_used).toBe(true);
    expect(shown.result).toMatch(UUID);
    const listed = JSON.parse((await get(`/v4/api/result?task_id=${w.taskId}`, w.userToken)).raw.toString());
    expect(listed.data).toEqual([
      expect.objectContaining({ id: w.id, result: shown.result, blob_storage_used: true }),
    ]);
    const task = JSON.parse(
      (await get(`/v4/api/task/${w.taskId}?include=results`, w.userToken)).raw.toString(),
    );
    expect(task.results).toEqual([
      expect.objectContaining({ result: shown.result, blob_storage_used: true }),
    ]);

    const down = await get(`/v4/api/blobstream/${shown.result}`, w.userToken);
    expect(down.status).toBe(200);
    expect(down.headers['content-type']).toBe('application/octet-stream');
    expect(down.raw.equals(data)).toBe(true);
  });

  it('keeps an inline output inline', async () => {
    const w = await world();
    await t.api('PATCH', `/result/${w.id}`, {
      token: w.nodeToken,
      body: { status: 'completed', result: 'aW5saW5l' },
    });
    const one = JSON.parse((await get(`/v4/api/result/${w.id}`, w.userToken)).raw.toString());
    expect(one).toMatchObject({ result: 'aW5saW5l', blob_storage_used: false });
  });

  it('streams to no one who may not see the result, and nothing for a UUID that names no output', async () => {
    const w = await world();
    const data = Buffer.from('RUs=$SVY=$c2VjcmV0', 'latin1');
    await storeOutput(w, data);
    const uuid = JSON.parse((await get(`/v4/api/result/${w.id}`, w.userToken)).raw.toString())
      .result as string;
    // Refused as the result itself is refused to that caller, and without a byte of the output.
    const refused = await get(`/v4/api/blobstream/${uuid}`, w.outsiderToken);
    const viaResult = await get(`/v4/api/result/${w.id}`, w.outsiderToken);
    expect(refused.status).toBe(401);
    expect(refused.status).toBe(viaResult.status);
    expect(refused.raw.toString()).not.toContain('c2VjcmV0');
    const forged = `${'0'.repeat(8)}${uuid.slice(8)}`;
    const wrong = await get(`/v4/api/blobstream/${forged}`, w.userToken);
    expect(wrong.status).toBe(404);
    expect(wrong.raw.toString()).toContain(forged);
    expect((await get('/v4/api/blobstream/not-a-uuid', w.userToken)).status).toBe(404);
    expect((await get('/v4/api/blobstream/status', w.userToken)).raw.toString()).toBe(
      '{"blob_store_enabled":true}',
    );
  });
});
