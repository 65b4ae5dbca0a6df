import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RecordingEventBus, startTestApp, type TestApp } from '@federa/testing';
import { INTERNAL_ERROR_MESSAGE } from '../errors.js';

let t: TestApp;
const events = new RecordingEventBus();
beforeAll(async () => {
  t = await startTestApp({ events });
});
afterAll(async () => t.close());
beforeEach(() => events.clear());

/** Organizations A and B in collaboration 1 (each with a node); A also in collaboration 2 with another node. */
async function world() {
  const orgA = await t.fx.organization();
  const orgB = await t.fx.organization();
  const collab = await t.fx.collaboration([orgA, orgB]);
  const collab2 = await t.fx.collaboration([orgA]);
  const nodeA = await t.fx.node(orgA, collab);
  const nodeB = await t.fx.node(orgB, collab);
  const nodeA2 = await t.fx.node(orgA, collab2);
  const researcher = await t.fx.user(orgA, { roles: ['Researcher'] });
  return { orgA, orgB, collab, collab2, nodeA, nodeB, nodeA2, researcher, token: await researcher.token() };
}

const ids = (body: { id: number }[]) => body.map((x) => x.id);

describe('GET /result for nodes', () => {
  it("answers the node's open work as a plain array of results with their task", async () => {
    const w = await world();
    const task = await t.fx.task(w.collab, [w.orgA, w.orgB], {
      name: 'work',
      database: 'db1',
      initUserId: w.researcher.id,
    });
    const elsewhere = await t.fx.task(w.collab2, [w.orgA]);
    const done = await t.fx.task(w.collab, [w.orgA]);
    await t.ctx.dbh.db
      .updateTable('result')
      .set({ finished_at: '2024-01-01T00:00:00.000000' })
      .where('task_id', '=', done.id)
      .execute();

    const node = await w.nodeA.token();
    const r = await t.api('GET', '/result', {
      token: node,
      query: { state: 'open', include: 'task', node_id: w.nodeA.id },
    });
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    expect(ids(r.body)).toEqual([task.resultIds[0]]);
    const [item] = r.body;
    expect(item).toMatchObject({
      input: 'aW5wdXQ=',
      status: 'pending',
      organization: { id: w.orgA },
      node: { id: w.nodeA.id },
      ports: [],
      task: {
        id: task.id,
        name: 'work',
        database: 'db1',
        run_id: task.runId,
        initiator: w.orgA,
        init_user: w.researcher.id,
        parent: null,
      },
    });
    expect(item.task.results).toBeUndefined();
    expect(ids(r.body)).not.toContain(elsewhere.resultIds[0]);

    const one = await t.api('GET', '/result', {
      token: node,
      query: { include: 'task', state: 'open', task_id: task.id, node_id: w.nodeA.id },
    });
    expect(ids(one.body)).toEqual([task.resultIds[0]]);
    const other = await t.api('GET', '/result', {
      token: await w.nodeB.token(),
      query: { state: 'open', include: 'task', node_id: w.nodeB.id, task_id: task.id },
    });
    expect(ids(other.body)).toEqual([task.resultIds[1]]);
  });
});

describe('the task embedded in a run (include=task)', () => {
  it('is the task as GET /task/{id} shows it without its results: status, completeness and last finish', async () => {
    const w = await world();
    const task = await t.fx.task(w.collab, [w.orgA, w.orgB]);
    const [ra, rb] = task.resultIds as [number, number];
    const embedded = async () => {
      const r = await t.api('GET', `/result/${ra}`, { token: w.token, query: { include: 'task' } });
      return r.body.task;
    };
    const shown = async () => {
      const { results, ...rest } = (await t.api('GET', `/task/${task.id}`, { token: w.token })).body;
      expect(results).toHaveLength(2);
      return rest;
    };
    const finish = (id: number, status: string, at: string) =>
      t.ctx.dbh.db.updateTable('result').set({ status, finished_at: at }).where('id', '=', id).execute();

    expect(await embedded()).toEqual(await shown());
    expect(await embedded()).toMatchObject({ status: 'pending', complete: false, finished_at: null });
    await finish(ra, 'completed', '2024-02-01T10:00:00.000000');
    expect(await embedded()).toEqual(await shown());
    expect(await embedded()).toMatchObject({ complete: false, finished_at: null });
    await finish(rb, 'completed', '2024-02-03T10:00:00.000000');
    expect(await embedded()).toEqual(await shown());
    expect(await embedded()).toMatchObject({
      status: 'completed',
      complete: true,
      finished_at: expect.stringMatching(/^2024-02-03T10:00:00/),
    });
  });
});

describe('GET /result filters', () => {
  it('filters by task, organization, port and the date ranges of the right columns', async () => {
    const w = await world();
    const task = await t.fx.task(w.collab, [w.orgA, w.orgB]);
    const [ra, rb] = task.resultIds as [number, number];
    const db = t.ctx.dbh.db;
    await db
      .updateTable('result')
      .set({
        assigned_at: '2023-01-10T00:00:00.000000',
        started_at: '2023-03-10T10:00:00.000000',
        finished_at: '2023-05-10T10:00:00.000000',
      })
      .where('id', '=', ra)
      .execute();
    await db
      .updateTable('result')
      .set({ assigned_at: '2023-02-10T00:00:00.000000', started_at: '2023-04-10T10:00:00.000000' })
      .where('id', '=', rb)
      .execute();
    await db.insertInto('port').values({ result_id: rb, port: 8888, label: 'p' }).execute();
    const get = async (query: Record<string, string | number>) => {
      const r = await t.api('GET', '/result', { token: w.token, query: { task_id: task.id, ...query } });
      expect(r.status).toBe(200);
      return ids(r.body);
    };
    expect(await get({})).toEqual([rb, ra]);
    expect(await get({ organization_id: w.orgA })).toEqual([ra]);
    expect(await get({ state: 'open' })).toEqual([rb]);
    expect(await get({ port: 'true' })).toEqual([rb]);
    expect(await get({ assigned_from: '2023-02-01T00:00:00' })).toEqual([rb]);
    expect(await get({ assigned_till: '2023-01-31' })).toEqual([ra]);
    expect(await get({ started_from: '2023-04-01T00:00:00' })).toEqual([rb]);
    expect(await get({ started_till: '2023-03-10T10:00:00.000000' })).toEqual([ra]);
    expect(await get({ finished_from: '2023-05-01T00:00:00' })).toEqual([ra]);
    expect(await get({ finished_till: '2023-04-30' })).toEqual([]);
    const bad = await t.api('GET', '/result', { token: w.token, query: { started_from: 'yesterday' } });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toContain('started_from');
    const paged = await t.api('GET', '/result', {
      token: w.token,
      query: { task_id: task.id, page: 2, per_page: 1, include: 'metadata' },
    });
    expect(ids(paged.body.data)).toEqual([ra]);
    expect(paged.headers['total-count']).toBe('2');
  });
});

describe('results of collaborations the caller is not part of', () => {
  it('are never shown to root, even with result.v_glo', async () => {
    const w = await world();
    const task = await t.fx.task(w.collab, [w.orgA], { input: 'secret-input' });
    const resultId = task.resultIds[0] as number;
    const one = await t.api('GET', `/result/${resultId}`, { token: t.rootToken });
    expect(one.status).toBe(401);
    expect(JSON.stringify(one.body)).not.toContain('secret-input');
    const list = await t.api('GET', '/result', { token: t.rootToken, query: { task_id: task.id } });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
    const viaTask = await t.api('GET', `/task/${task.id}/result`, { token: t.rootToken });
    expect(viaTask.status).toBe(401);
    // A member sees it.
    expect((await t.api('GET', `/result/${resultId}`, { token: w.token })).body.input).toBe('secret-input');
  });

  it('are refused to a user of another organization and to a node of another collaboration', async () => {
    const w = await world();
    const task = await t.fx.task(w.collab, [w.orgA]);
    const stranger = await t.fx.user(await t.fx.organization(), { roles: ['Researcher'] });
    expect(
      (await t.api('GET', `/result/${task.resultIds[0]}`, { token: await stranger.token() })).status,
    ).toBe(401);
    expect(
      (await t.api('GET', `/result/${task.resultIds[0]}`, { token: await w.nodeA2.token() })).status,
    ).toBe(401);
    expect((await t.api('GET', '/result/999999', { token: w.token })).status).toBe(404);
  });
});

describe('GET /result/{id}', () => {
  it('gives the standard form, or the task embedded with include=task', async () => {
    const w = await world();
    const task = await t.fx.task(w.collab, [w.orgA]);
    const id = task.resultIds[0] as number;
    const r = await t.api('GET', `/result/${id}`, { token: w.token });
    expect(r.body).toMatchObject({
      id,
      task: { id: task.id, link: `/api/task/${task.id}` },
      organization: { id: w.orgA, link: `/api/organization/${w.orgA}` },
      result: null,
      log: null,
      started_at: null,
      finished_at: null,
    });
    expect(r.body.assigned_at).toMatch(/\+00:00$/);
    const withTask = await t.api('GET', `/result/${id}`, { token: w.token, query: { include: 'task' } });
    expect(withTask.body.task).toMatchObject({ id: task.id, run_id: task.runId });
  });
});

describe('PATCH /result/{id}', () => {
  it('starts and finishes a run with the overwrite semantics and emits status_update', async () => {
    const w = await world();
    const task = await t.fx.task(w.collab, [w.orgA]);
    const id = task.resultIds[0] as number;
    const node = await w.nodeA.token();
    const start = await t.api('PATCH', `/result/${id}`, {
      token: node,
      body: { started_at: '2024-05-01T10:00:00.123456' },
    });
    expect(start.status).toBe(200);
    expect(start.body.started_at).toBe('2024-05-01T10:00:00.123456+00:00');
    expect(start.body.status).toBe('pending');
    // To the users watching the collaboration and to the room of the run's (and initiator's) organization, where
    // its node and its researchers are.
    expect(events.emitted).toEqual([
      { room: `federa:watch:collaboration_${w.collab}`, event: 'status_update', payload: { result_id: id } },
      {
        room: `collaboration_${w.collab}_organization_${w.orgA}`,
        event: 'status_update',
        payload: { result_id: id },
      },
    ]);

    const active = await t.api('PATCH', `/result/${id}`, {
      token: node,
      body: { status: 'active', log: 'starting' },
    });
    expect(active.body).toMatchObject({
      status: 'active',
      log: 'starting',
      started_at: '2024-05-01T10:00:00.123456+00:00',
    });
    // Without log, the log is cleared (vantage6 overwrite semantics); without started_at it is kept.
    const again = await t.api('PATCH', `/result/${id}`, { token: node, body: { result: 'cGFydA==' } });
    expect(again.body).toMatchObject({
      status: 'active',
      log: null,
      result: 'cGFydA==',
      started_at: '2024-05-01T10:00:00.123456+00:00',
      finished_at: null,
    });

    // Python omits the fraction when it is zero.
    const finish = await t.api('PATCH', `/result/${id}`, {
      token: node,
      body: { finished_at: '2024-05-01T10:05:00', result: 'b3V0', log: 'done', status: 'completed' },
    });
    expect(finish.status).toBe(200);
    expect(finish.body).toMatchObject({
      finished_at: '2024-05-01T10:05:00+00:00',
      result: 'b3V0',
      log: 'done',
      status: 'completed',
    });
    const refused = await t.api('PATCH', `/result/${id}`, {
      token: node,
      body: { status: 'killed by user' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toMatch(/finished/);
    // The same report again (a node that could not know whether the first one arrived) is accepted, changes nothing.
    const updates = events.named('status_update').length;
    const repeated = await t.api('PATCH', `/result/${id}`, {
      token: node,
      body: { finished_at: '2024-05-01T10:06:00', result: 'b3V0', log: 'done', status: 'completed' },
    });
    expect(repeated.status).toBe(200);
    expect(repeated.body).toMatchObject({ finished_at: '2024-05-01T10:05:00+00:00', status: 'completed' });
    expect(events.named('status_update')).toHaveLength(updates);
    const different = await t.api('PATCH', `/result/${id}`, {
      token: node,
      body: { finished_at: '2024-05-01T10:06:00', result: 'b3V0', log: 'other', status: 'completed' },
    });
    expect(different.status).toBe(400);
    const task2 = await t.api('GET', `/task/${task.id}`, { token: w.token });
    expect(task2.body).toMatchObject({
      complete: true,
      status: 'completed',
      finished_at: '2024-05-01T10:05:00+00:00',
    });
  });

  it('refuses an invalid timestamp naming the field, another organization, a user, and unknown results', async () => {
    const w = await world();
    const task = await t.fx.task(w.collab, [w.orgA]);
    const id = task.resultIds[0] as number;
    const bad = await t.api('PATCH', `/result/${id}`, {
      token: await w.nodeA.token(),
      body: { finished_at: '01-05-2024 10:00' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toContain('finished_at');
    const before = await t.api('GET', `/result/${id}`, { token: w.token });
    expect(before.body.finished_at).toBeNull();
    expect(
      (await t.api('PATCH', `/result/${id}`, { token: await w.nodeB.token(), body: { status: 'active' } }))
        .status,
    ).toBe(401);
    expect(
      (await t.api('PATCH', `/result/${id}`, { token: await w.nodeA2.token(), body: { status: 'active' } }))
        .status,
    ).toBe(401);
    expect(
      (await t.api('PATCH', `/result/${id}`, { token: w.token, body: { status: 'active' } })).status,
    ).toBe(401);
    expect((await t.api('PATCH', '/result/999999', { token: await w.nodeA.token(), body: {} })).status).toBe(
      404,
    );
    expect(events.emitted).toEqual([]);
  });
});

describe('an internal SQL error', () => {
  it('answers 500 with the generic message and no SQL text', async () => {
    const own = await startTestApp();
    try {
      const org = await own.fx.organization();
      const collab = await own.fx.collaboration([org]);
      await own.fx.node(org, collab);
      const user = await own.fx.user(org, { roles: ['Researcher'] });
      const task = await own.fx.task(collab, [org]);
      await sql`DROP TABLE port`.execute(own.ctx.dbh.db);
      const r = await own.api('GET', `/result/${task.resultIds[0]}`, { token: await user.token() });
      expect(r.status).toBe(500);
      expect(r.body.msg).toBe(INTERNAL_ERROR_MESSAGE);
      expect(r.raw.body).not.toMatch(/port|select|from|sqlite|relation/i);
    } finally {
      await own.close();
    }
  });
});
