import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

async function world() {
  const orgA = await t.fx.organization();
  const orgB = await t.fx.organization();
  const collab = await t.fx.collaboration([orgA, orgB]);
  const nodeA = await t.fx.node(orgA, collab);
  const nodeB = await t.fx.node(orgB, collab);
  const task = await t.fx.task(collab, [orgA, orgB]);
  const user = await t.fx.user(orgA, { roles: ['Researcher'] });
  return {
    orgA,
    orgB,
    collab,
    nodeA,
    nodeB,
    task,
    resultA: task.resultIds[0] as number,
    token: await user.token(),
  };
}

describe('POST /port and DELETE /port', () => {
  it('lets the node serving a result register and drop its ports', async () => {
    const w = await world();
    const node = await w.nodeA.token();
    const r = await t.api('POST', '/port', {
      token: node,
      body: { result_id: w.resultA, port: 8080, label: 'api' },
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ id: expect.any(Number), port: 8080, label: 'api', result: w.resultA });
    const unlabeled = await t.api('POST', '/port', {
      token: node,
      body: { result_id: w.resultA, port: 9090, label: null },
    });
    expect(unlabeled.body.label).toBeNull();
    const result = await t.api('GET', `/result/${w.resultA}`, { token: w.token });
    expect(result.body.ports).toEqual([
      { id: r.body.id, port: 8080, label: 'api' },
      { id: unlabeled.body.id, port: 9090, label: null },
    ]);

    const del = await t.api('DELETE', '/port', { token: node, query: { result_id: w.resultA } });
    expect(del.status).toBe(200);
    expect(del.body.msg).toContain('2');
    expect((await t.api('GET', `/port/${r.body.id}`, { token: w.token })).status).toBe(404);
  });

  it('refuses another node (401), an unknown result (404), a user, and a missing result_id (400)', async () => {
    const w = await world();
    expect(
      (
        await t.api('POST', '/port', {
          token: await w.nodeB.token(),
          body: { result_id: w.resultA, port: 1 },
        })
      ).status,
    ).toBe(401);
    expect(
      (await t.api('DELETE', '/port', { token: await w.nodeB.token(), query: { result_id: w.resultA } }))
        .status,
    ).toBe(401);
    expect(
      (await t.api('POST', '/port', { token: await w.nodeA.token(), body: { result_id: 999999, port: 1 } }))
        .status,
    ).toBe(404);
    expect(
      (await t.api('POST', '/port', { token: w.token, body: { result_id: w.resultA, port: 1 } })).status,
    ).toBe(401);
    const missing = await t.api('DELETE', '/port', { token: await w.nodeA.token() });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toContain('result_id');
  });
});

describe('GET /port', () => {
  it('lists ports of the caller’s collaborations, newest first, with filters', async () => {
    const w = await world();
    const db = t.ctx.dbh.db;
    const p1 = await db
      .insertInto('port')
      .values({ result_id: w.resultA, port: 1000, label: 'a' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const p2 = await db
      .insertInto('port')
      .values({ result_id: w.task.resultIds[1] as number, port: 2000, label: 'b' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const list = await t.api('GET', '/port', { token: w.token, query: { task_id: w.task.id } });
    expect(list.status).toBe(200);
    expect(list.body.map((p: { id: number }) => p.id)).toEqual([p2.id, p1.id]);
    expect(
      (await t.api('GET', '/port', { token: w.token, query: { result_id: w.resultA } })).body.map(
        (p: { id: number }) => p.id,
      ),
    ).toEqual([p1.id]);
    expect(
      (await t.api('GET', '/port', { token: w.token, query: { run_id: w.task.runId } })).body,
    ).toHaveLength(2);
    expect((await t.api('GET', `/port/${p1.id}`, { token: await w.nodeB.token() })).body).toEqual({
      id: p1.id,
      port: 1000,
      label: 'a',
      result: w.resultA,
    });

    const stranger = await t.fx.user(await t.fx.organization(), { roles: ['Researcher'] });
    const theirs = await t.api('GET', '/port', {
      token: await stranger.token(),
      query: { task_id: w.task.id },
    });
    expect(theirs.body).toEqual([]);
    expect((await t.api('GET', `/port/${p1.id}`, { token: await stranger.token() })).status).toBe(401);
  });
});
