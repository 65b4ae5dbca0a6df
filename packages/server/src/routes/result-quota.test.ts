import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, storedFiles, type TestApp } from '@federa/testing';

const MIB = 1024 * 1024;
let t: TestApp;
let dir: string;
let base: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-result-quota-'));
  // A node may hold 1 MiB, the store 2 MiB: small enough for outputs of a few hundred kilobytes to reach them.
  t = await startTestApp({
    config: {
      result_store: { type: 'folder', directory: dir, max_mb: 1, node_quota_mb: 1, total_quota_mb: 2 },
    },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api`;
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** `PUT /result/{id}/output` over real HTTP (the route reads the body as a stream). */
function upload(
  id: number,
  token: string,
  body: Buffer,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}/result/${id}/output`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${token}`,
        'content-length': String(body.length),
        'content-type': 'application/octet-stream',
        'x-federa-sha256': sha(body),
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>,
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A node of a new organization in a new collaboration, and a way to give it open runs. */
async function node() {
  const org = await t.fx.organization();
  const collab = await t.fx.collaboration([org]);
  const n = await t.fx.node(org, collab);
  const token = await n.token();
  return {
    token,
    run: async () => {
      const task = await t.fx.task(collab, [org]);
      return { id: task.resultIds[0]!, taskId: task.id };
    },
  };
}

const files = async (id: number) => (await storedFiles(dir)).filter((f) => f.startsWith(`result-${id}-`));

describe('the quotas of the result store', () => {
  it("refuses with 507 naming result_store.node_quota_mb an upload past the node's quota, and takes it once space is freed", async () => {
    const n = await node();
    const [a, b, c] = [await n.run(), await n.run(), await n.run()];
    expect((await upload(a.id, n.token, randomBytes(400_000))).status).toBe(201);
    expect((await upload(b.id, n.token, randomBytes(400_000))).status).toBe(201);
    const over = await upload(c.id, n.token, randomBytes(400_000));
    expect(over.status).toBe(507);
    expect(over.body.code).toBe('result_store_quota');
    expect(over.body.msg).toContain('result_store.node_quota_mb (1 MiB)');
    expect(over.body.msg).toContain('this node');
    expect(await files(c.id)).toEqual([]);
    // A new upload of a run replaces its earlier one: it counts once.
    expect((await upload(b.id, n.token, randomBytes(500_000))).status).toBe(201);
    // Deleting a task frees what its runs held.
    expect((await t.api('DELETE', `/task/${a.taskId}`, { token: t.rootToken })).status).toBe(200);
    expect((await upload(c.id, n.token, randomBytes(400_000))).status).toBe(201);
  });

  it('refuses with 507 naming result_store.total_quota_mb an upload past what the whole store may hold', async () => {
    const held = await t.ctx.dbh.db
      .selectFrom('result')
      .select((eb) => eb.fn.sum<number | string | null>('held_bytes').as('bytes'))
      .executeTakeFirst();
    const left = 2 * MIB - Number(held?.bytes ?? 0);
    // Each upload from a node of its own: the nodes' quotas are not what stops them.
    const fits = Math.floor(left / 700_000);
    for (let i = 0; i < fits; i++) {
      const n = await node();
      expect((await upload((await n.run()).id, n.token, randomBytes(700_000))).status).toBe(201);
    }
    const n = await node();
    const refused = await upload((await n.run()).id, n.token, randomBytes(700_000));
    expect(refused.status).toBe(507);
    expect(refused.body.code).toBe('result_store_quota');
    expect(refused.body.msg).toContain('result_store.total_quota_mb (2 MiB) for all outputs');
  });

  it('counts uploads sent at the same moment: together they do not pass the quota', async () => {
    const n = await node();
    const runs = await Promise.all(Array.from({ length: 6 }, () => n.run()));
    const answers = await Promise.all(runs.map((r) => upload(r.id, n.token, randomBytes(300_000))));
    expect(answers.filter((a) => a.status === 201).length).toBeLessThanOrEqual(3);
    let held = 0;
    for (const r of runs) held += (await files(r.id)).length * 300_000;
    expect(held).toBeLessThanOrEqual(MIB);
  });
});

describe('an upload to a run that is not open', () => {
  it("is refused with 409 naming the run's status when the run was killed, and nothing is stored", async () => {
    const n = await node();
    const r = await n.run();
    expect((await t.api('POST', '/kill/task', { token: t.rootToken, body: { id: r.taskId } })).status).toBe(
      200,
    );
    const late = await upload(r.id, n.token, randomBytes(2000));
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({
      code: 'run_closed',
      msg: `Result ${r.id} is 'killed by user': no output can be uploaded to it any more.`,
    });
    expect(await files(r.id)).toEqual([]);
  });

  it('is refused with 409 when the run finished without an upload', async () => {
    const n = await node();
    const r = await n.run();
    const report = await t.api('PATCH', `/result/${r.id}`, {
      token: n.token,
      body: { status: 'failed', log: 'no output' },
    });
    expect(report.status).toBe(200);
    const late = await upload(r.id, n.token, randomBytes(2000));
    expect(late.status).toBe(409);
    expect(late.body.msg).toContain("is 'failed'");
    expect(await files(r.id)).toEqual([]);
  });
});

describe('deleting a task', () => {
  it('removes at once the uploads its open runs held, not only named outputs', async () => {
    const n = await node();
    const r = await n.run();
    expect((await upload(r.id, n.token, randomBytes(3000))).status).toBe(201);
    expect(await files(r.id)).toHaveLength(1);
    expect((await t.api('DELETE', `/task/${r.taskId}`, { token: t.rootToken })).status).toBe(200);
    expect(await files(r.id)).toEqual([]);
  });
});
