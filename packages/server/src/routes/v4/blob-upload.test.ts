/**
 * Uploads to `/v4/api/blobstream` as vantage6 4.14's client, node and algorithms send them: streamed into the result
 * store, taken by a task as a run's input or by a node's report as its run's output, read back byte for byte by
 * those who may, expired when no task takes them, and nothing left of an upload cut short.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTaskRows, startTestApp, taskBody, taskWorld, until, type TestApp } from '@federa/testing';
import { sweepBlobs } from '../../result-store/blob-sweep.js';

let t: TestApp;
let dir: string;
let base: string;
let w: Awaited<ReturnType<typeof taskWorld>>;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-v4-upload-'));
  t = await startTestApp({
    config: { result_store: { type: 'folder', directory: dir, max_mb: 16, total_quota_mb: 64 } },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v4/api`;
  w = await taskWorld(t);
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Sends `data` as the 4.x client does: chunked, without Content-Length. */
async function upload(
  token: string,
  data: Buffer,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const chunks = async function* () {
    for (let at = 0; at < data.length; at += 64 * 1024) yield data.subarray(at, at + 64 * 1024);
  };
  const res = await fetch(`${base}/blobstream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body: chunks() as unknown as RequestInit['body'],
    duplex: 'half',
  } as RequestInit);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function v4(method: string, path: string, token: string, body?: unknown) {
  const res = await t.app.inject({
    method: method as 'GET',
    url: `/v4/api${path}`,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
  return { status: res.statusCode, raw: res.rawPayload, text: res.body };
}

const blobText = (mib: number): Buffer =>
  Buffer.from(randomBytes(mib * 1024 * 1024).toString('base64'), 'latin1');

async function blobRows() {
  return t.ctx.dbh.db.selectFrom('blob').selectAll().execute();
}

describe('uploads to /v4/api/blobstream', () => {
  it('says the blob store is on', async () => {
    const res = await v4('GET', '/blobstream/status', w.token);
    expect(JSON.parse(res.text)).toEqual({ blob_store_enabled: true });
  });

  it('takes an upload as a task input, and streams it back byte for byte to those who may see the run', async () => {
    const data = blobText(3);
    const up = await upload(w.token, data);
    expect(up.status).toBe(201);
    const uuid = up.body.uuid as string;
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    // Its uploader reads it before a task takes it.
    expect((await v4('GET', `/blobstream/${uuid}`, w.token)).raw.equals(data)).toBe(true);

    const body = taskBody(w.collab, [w.orgA]);
    body.organizations = [{ id: w.orgA, input: uuid }];
    const made = await v4('POST', '/task', w.token, body);
    expect(made.status).toBe(201);
    const task = JSON.parse(made.text) as { id: number };
    const run = await t.api('GET', `/result?task_id=${task.id}`, { token: w.token });
    const result = (run.body as { id: number; input: string }[])[0]!;
    expect(result.input.length).toBe(data.length);
    expect(result.input === data.toString('latin1')).toBe(true);

    const nodeToken = await w.nodeA.token();
    for (const token of [w.token, nodeToken]) {
      const down = await v4('GET', `/blobstream/${uuid}`, token);
      expect(down.status).toBe(200);
      expect(down.raw.equals(data)).toBe(true);
    }
    // Taken: it no longer expires.
    await sweepBlobs({
      db: () => t.ctx.dbh.db,
      store: t.ctx.results,
      expiryMs: 1,
      now: () => Date.now() + 3600_000,
    });
    expect((await v4('GET', `/blobstream/${uuid}`, nodeToken)).raw.equals(data)).toBe(true);
    // Its run deleted, it expires as any upload no task took.
    expect((await t.api('DELETE', `/task/${task.id}`, { token: t.rootToken })).status).toBe(200);
    await sweepBlobs({
      db: () => t.ctx.dbh.db,
      store: t.ctx.results,
      expiryMs: 1,
      now: () => Date.now() + 3600_000,
    });
    expect((await v4('GET', `/blobstream/${uuid}`, t.rootToken)).status).toBe(404);
    expect((await blobRows()).some((b) => b.uuid === uuid)).toBe(false);
  });

  it("gives another collaboration's user nothing (404), and nothing for an unknown or malformed uuid", async () => {
    const data = Buffer.from('c2VjcmV0LWlucHV0', 'latin1');
    const uuid = (await upload(w.token, data)).body.uuid as string;
    const outsider = await t.fx.user(await t.fx.organization(), { roles: ['Researcher'] });
    const refused = await v4('GET', `/blobstream/${uuid}`, await outsider.token());
    expect(refused.status).toBe(404);
    expect(refused.text).not.toContain('c2VjcmV0');
    expect((await v4('GET', `/blobstream/${randomUUID()}`, w.token)).status).toBe(404);
    expect((await v4('GET', '/blobstream/not-a-uuid', w.token)).status).toBe(404);
  });

  it('refuses a task naming an unknown blob or one uploaded by someone else (400 naming it), storing nothing', async () => {
    const other = await t.fx.user(await t.fx.organization(), { roles: ['Researcher'] });
    const foreign = (await upload(await other.token(), Buffer.from('Zm9yZWlnbg==', 'latin1'))).body
      .uuid as string;
    const before = await countTaskRows(t);
    for (const uuid of [randomUUID(), foreign]) {
      const body = taskBody(w.collab, [w.orgA]);
      body.organizations = [{ id: w.orgA, input: uuid }];
      const res = await v4('POST', '/task', w.token, body);
      expect(res.status).toBe(400);
      expect(res.text).toContain(uuid);
    }
    expect(await countTaskRows(t)).toEqual(before);
  });

  it('takes no uploads, and says so, when result_store.blob_uploads is off', async () => {
    const config = t.ctx.config.result_store;
    config.blob_uploads = false;
    try {
      expect(JSON.parse((await v4('GET', '/blobstream/status', w.token)).text)).toEqual({
        blob_store_enabled: false,
      });
      const refused = await upload(w.token, Buffer.from('eA==', 'latin1'));
      expect(refused.status).toBe(501);
      expect(refused.body.msg).toContain('result_store.blob_uploads');
    } finally {
      config.blob_uploads = true;
    }
  });

  it('refuses uploads to users who may not create tasks', async () => {
    const viewer = await t.fx.user(w.orgA, { roles: ['Viewer'] });
    expect((await upload(await viewer.token(), Buffer.from('eA==', 'latin1'))).status).toBe(401);
  });

  it('removes uploads no task took once they expire', async () => {
    const uuid = (await upload(w.token, Buffer.from('ZXhwaXJlcw==', 'latin1'))).body.uuid as string;
    const now = () => Date.now() + t.ctx.config.result_store.blob_expiry_minutes * 60_000 + 1000;
    const report = await sweepBlobs({ db: () => t.ctx.dbh.db, store: t.ctx.results, expiryMs: 60_000, now });
    expect(report.removed).toBeGreaterThanOrEqual(1);
    expect((await v4('GET', `/blobstream/${uuid}`, w.token)).status).toBe(404);
    expect((await blobRows()).some((b) => b.uuid === uuid)).toBe(false);
    expect(await readdir(join(dir, 'blobs')).catch(() => [])).not.toContain(`blob-${uuid}`);
  });

  it("makes a 4.x node's upload its run's stored output", async () => {
    const made = await t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgB]) });
    const runId = made.body.results[0].id as number;
    const nodeToken = await w.nodeB.token();
    const data = blobText(2);
    const uuid = (await upload(nodeToken, data)).body.uuid as string;
    const report = await v4('PATCH', `/run/${runId}`, nodeToken, { status: 'completed', result: uuid });
    expect(report.status).toBe(200);
    // As a Federa client reads it (a stream, over a connection).
    const output = await fetch(`${base.replace('/v4/api', '/api')}/result/${runId}/output`, {
      headers: { authorization: `Bearer ${w.token}` },
    });
    expect(Buffer.from(await output.arrayBuffer()).equals(data)).toBe(true);
    const shown = JSON.parse((await v4('GET', `/result/${runId}`, w.token)).text);
    expect(shown.blob_storage_used).toBe(true);
    expect((await v4('GET', `/blobstream/${shown.result}`, w.token)).raw.equals(data)).toBe(true);
    // The upload became the output: it is not held twice.
    expect((await blobRows()).some((b) => b.uuid === uuid)).toBe(false);
  });

  it('leaves nothing of an upload cut in the middle', async () => {
    const before = (await blobRows()).length;
    const url = new URL(`${base}/blobstream`);
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: { authorization: `Bearer ${w.token}`, 'content-type': 'application/octet-stream' },
    });
    req.on('error', () => undefined);
    req.write(randomBytes(1024 * 1024));
    // Cut once the server has begun to store it.
    await until('the upload to begin', blobRows, (rows) => rows.length > before);
    req.destroy();
    await until('the cut upload to be gone', blobRows, (rows) => rows.length === before);
    await until(
      'no temporary file',
      () => readdir(dir),
      (names) => names.every((n) => !n.startsWith('.tmp-')),
    );
    expect(await readdir(join(dir, 'blobs')).catch(() => [])).toHaveLength(
      (await blobRows()).filter((b) => b.size !== null).length,
    );
  });
});

describe('uploads against the limits of the result store', () => {
  let small: TestApp;
  let smallDir: string;
  let smallBase: string;
  beforeAll(async () => {
    smallDir = await mkdtemp(join(tmpdir(), 'federa-v4-upload-small-'));
    small = await startTestApp({
      config: { result_store: { type: 'folder', directory: smallDir, max_mb: 2, total_quota_mb: 3 } },
    });
    await small.app.listen({ port: 0, host: '127.0.0.1' });
    smallBase = `http://127.0.0.1:${(small.app.server.address() as AddressInfo).port}/v4/api`;
  });
  afterAll(async () => {
    await small?.close();
    await rm(smallDir, { recursive: true, force: true });
  });

  it('answers 413 for an upload larger than max_mb and 507 once the quota is full', async () => {
    const org = await small.fx.organization();
    const user = await small.fx.user(org, { roles: ['Researcher'] });
    const token = await user.token();
    // Over node:http as a node sends it: declared (Content-Length) or chunked.
    const send = (bytes: number, declare: boolean) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const body = randomBytes(bytes);
        const req = httpRequest(`${smallBase}/blobstream`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/octet-stream',
            ...(declare ? { 'content-length': String(bytes) } : {}),
          },
        });
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
          );
        });
        req.on('error', reject);
        req.end(body);
      });
    expect((await send(2.5 * 1024 * 1024, false)).status).toBe(413);
    expect((await send(1.5 * 1024 * 1024, true)).status).toBe(201);
    const full = await send(1.75 * 1024 * 1024, false);
    expect(full.status).toBe(507);
    expect(full.text).toContain('result_store.total_quota_mb');
    const declared = await send(1.75 * 1024 * 1024, true);
    expect(declared.status).toBe(507);
    const rows = await small.ctx.dbh.db.selectFrom('blob').selectAll().execute();
    expect(rows).toHaveLength(1);
  });
});

describe('uploads in the database result store', () => {
  let d: TestApp;
  let dBase: string;
  beforeAll(async () => {
    d = await startTestApp({ config: { result_store: { type: 'database' } } });
    await d.app.listen({ port: 0, host: '127.0.0.1' });
    dBase = `http://127.0.0.1:${(d.app.server.address() as AddressInfo).port}/v4/api`;
  });
  afterAll(async () => {
    await d?.close();
  });

  it('are kept in pieces and read back byte for byte, then expire', async () => {
    const dw = await taskWorld(d);
    const data = blobText(2);
    const res = await fetch(`${dBase}/blobstream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${dw.token}`, 'content-type': 'application/octet-stream' },
      body: data,
    });
    expect(res.status).toBe(201);
    const { uuid } = (await res.json()) as { uuid: string };
    const down = await d.app.inject({
      method: 'GET',
      url: `/v4/api/blobstream/${uuid}`,
      headers: { authorization: `Bearer ${dw.token}` },
    });
    expect(down.rawPayload.equals(data)).toBe(true);
    const later = () => Date.now() + 3600_000 * 24;
    await sweepBlobs({ db: () => d.ctx.dbh.db, store: d.ctx.results, expiryMs: 60_000, now: later });
    expect(await d.ctx.results.get(`blob-${uuid}`)).toBeUndefined();
  });
});
