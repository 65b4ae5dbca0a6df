import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RecordingEventBus, startTestApp, taskBody, taskWorld, type TestApp } from '@federa/testing';

let t: TestApp;
const events = new RecordingEventBus();
beforeAll(async () => {
  t = await startTestApp({ events });
});
afterAll(async () => t.close());
beforeEach(() => events.clear());

describe('GET /task', () => {
  it('returns null (never []) for empty references, and filters', async () => {
    const w = await taskWorld(t);
    const created = await t.api('POST', '/task', {
      token: w.token,
      body: taskBody(w.collab, [w.orgA], { name: 'filter-me-42' }),
    });
    const r = await t.api('GET', '/task', { token: w.token, query: { name: 'filter-me-%' } });
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    expect(r.body).toHaveLength(1);
    expect(r.body[0].children).toBeNull();
    expect(r.body[0].parent).toBeNull();
    expect(r.body[0].results).toEqual([
      {
        id: expect.any(Number),
        link: expect.stringMatching(/^\/api\/result\/\d+$/),
        methods: ['GET', 'PATCH'],
      },
    ]);
    expect(r.headers['total-count']).toBe('1');
    const empty = await t.fx.task(w.collab, [], { name: 'no-results-here', initiatorId: w.orgA });
    const none = await t.api('GET', '/task', { token: w.token, query: { name: 'no-results-here' } });
    expect(none.body[0]).toMatchObject({
      id: empty.id,
      results: null,
      children: null,
      parent: null,
      complete: true,
      status: 'completed',
    });

    expect(
      (
        await t.api('GET', '/task', {
          token: w.token,
          query: { initiator_id: w.orgA, collaboration_id: w.collab },
        })
      ).body.map((x: { id: number }) => x.id),
    ).toEqual([empty.id, created.body.id]);
    const byResult = await t.api('GET', '/task', {
      token: w.token,
      query: { result_id: created.body.results[0].id },
    });
    expect(byResult.body.map((x: { id: number }) => x.id)).toEqual([created.body.id]);
    expect(
      (await t.api('GET', '/task', { token: w.token, query: { init_user_id: w.researcher.id } })).body,
    ).toHaveLength(1);
  });

  it('filters on the aggregate status', async () => {
    const w = await taskWorld(t);
    const active = await t.fx.task(w.collab, [w.orgA, w.orgB]);
    await t.ctx.dbh.db
      .updateTable('result')
      .set({ status: 'active' })
      .where('id', '=', active.resultIds[0] as number)
      .execute();
    const failed = await t.fx.task(w.collab, [w.orgA, w.orgB]);
    await t.ctx.dbh.db
      .updateTable('result')
      .set({ status: 'crashed', finished_at: '2024-01-01T00:00:00.000000' })
      .where('id', '=', failed.resultIds[0] as number)
      .execute();
    const pending = await t.fx.task(w.collab, [w.orgA]);
    const ids = async (status: string) =>
      (
        await t.api('GET', '/task', { token: w.token, query: { status, collaboration_id: w.collab } })
      ).body.map((x: { id: number; status: string }) => [x.id, x.status]);
    expect(await ids('active')).toEqual([[active.id, 'active']]);
    expect(await ids('failed')).toEqual([[failed.id, 'failed']]);
    expect(await ids('pending')).toEqual([[pending.id, 'pending']]);
    expect(await ids('completed')).toEqual([]);
  });

  it('embeds results with include=results and with include=result, and paginates with metadata', async () => {
    const w = await taskWorld(t);
    await t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA, w.orgB]) });
    for (const include of ['results', 'result']) {
      const r = await t.api('GET', '/task', {
        token: w.token,
        query: { include, collaboration_id: w.collab },
      });
      expect(r.body[0].results).toHaveLength(2);
      expect(r.body[0].results[0]).toMatchObject({
        organization: w.orgA,
        input: `input-for-${w.orgA}`,
        status: 'pending',
      });
      expect(r.body[0].results[0].task).toBeUndefined();
    }
    await t.fx.task(w.collab, [w.orgA]);
    await t.fx.task(w.collab, [w.orgA]);
    const page = await t.api('GET', '/task', {
      token: w.token,
      query: { collaboration_id: w.collab, page: 1, per_page: 2, include: 'metadata' },
    });
    expect(page.body.data).toHaveLength(2);
    expect(page.body.data[0].id).toBeGreaterThan(page.body.data[1].id);
    expect(page.body.links.next).toContain('page=2');
    expect(page.headers['total-count']).toBe('3');
  });

  it("shows only the caller's collaborations with task.v_org; root sees foreign tasks but never their results", async () => {
    const w = await taskWorld(t);
    const created = await t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA]) });
    const stranger = await t.fx.user(await t.fx.organization(), { roles: ['Researcher'] });
    const theirs = await t.api('GET', '/task', { token: await stranger.token() });
    expect(theirs.body.map((x: { id: number }) => x.id)).not.toContain(created.body.id);
    expect((await t.api('GET', `/task/${created.body.id}`, { token: await stranger.token() })).status).toBe(
      401,
    );
    const root = await t.api('GET', `/task/${created.body.id}`, {
      token: t.rootToken,
      query: { include: 'results' },
    });
    expect(root.status).toBe(200);
    expect(root.body.results).toEqual([]);
    const rootList = await t.api('GET', '/task', {
      token: t.rootToken,
      query: { include: 'results', collaboration_id: w.collab },
    });
    expect(rootList.body[0].results).toEqual([]);
  });

  it('answers each listing with its own values when the compiled form of an earlier one is reused', async () => {
    // The task listing is compiled once per form (which filters are given) and run with new values: two callers
    // with other collaborations, names and pages must each get their own answer, in any order.
    const one = await taskWorld(t);
    const two = await taskWorld(t);
    const mine = async (w: typeof one, name: string) =>
      (await t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA], { name }) })).body
        .id as number;
    const a1 = await mine(one, 'reuse-a-1');
    const a2 = await mine(one, 'reuse-a-2');
    const b1 = await mine(two, 'reuse-b-1');
    const list = async (w: typeof one, query: Record<string, string | number>) => {
      const r = await t.api('GET', '/task', { token: w.token, query });
      return {
        ids: r.body.map((x: { id: number }) => x.id),
        total: r.headers['total-count'],
        link: r.headers.link,
      };
    };
    for (let round = 0; round < 2; round++) {
      expect(await list(one, { name: 'reuse-%', page: 1, per_page: 1 })).toMatchObject({
        ids: [a2],
        total: '2',
      });
      expect(await list(one, { name: 'reuse-%', page: 2, per_page: 1 })).toMatchObject({
        ids: [a1],
        total: '2',
      });
      expect(await list(two, { name: 'reuse-%', page: 1, per_page: 1 })).toMatchObject({
        ids: [b1],
        total: '1',
      });
      expect(await list(one, { name: 'reuse-a-1', page: 1, per_page: 5 })).toMatchObject({
        ids: [a1],
        total: '1',
      });
      // Past the last page: no ids, the listing still counted.
      expect(await list(one, { name: 'reuse-%', page: 3, per_page: 1 })).toMatchObject({
        ids: [],
        total: '2',
      });
      // A status no task has matches nothing, whatever its text.
      for (const status of ['nonsense', "x' or 1=1 --"])
        expect(await list(one, { status, page: 1 })).toMatchObject({ ids: [], total: '0' });
    }
    // Every listing says it is JSON, whichever of its forms was written.
    const forms: Record<string, string | number>[] = [
      { page: 1 },
      { page: 1, include: 'metadata' },
      { include: 'results' },
    ];
    for (const query of forms)
      expect((await t.api('GET', '/task', { token: one.token, query })).headers['content-type']).toBe(
        'application/json; charset=utf-8',
      );
    // The page links keep the caller's own parameters, in their order.
    expect((await list(one, { name: 'reuse-%', per_page: 1, page: 2 })).link).toBe(
      '</api/task?name=reuse-%25&per_page=1&page=1>; rel=first,</api/task?name=reuse-%25&per_page=1&page=1>; rel=previous,' +
        '</api/task?name=reuse-%25&per_page=1&page=2>; rel=self,</api/task?name=reuse-%25&per_page=1&page=2>; rel=last',
    );
  });

  it('answers 404 for an unknown task', async () => {
    expect((await t.api('GET', '/task/999999', { token: t.rootToken })).status).toBe(404);
  });
});

describe('GET /task/{id}/result', () => {
  it('serves the same results as GET /result, in the task-result form', async () => {
    const w = await taskWorld(t);
    const created = await t.api('POST', '/task', {
      token: w.token,
      body: taskBody(w.collab, [w.orgA, w.orgB]),
    });
    const viaTask = await t.api('GET', `/task/${created.body.id}/result`, { token: w.token });
    const viaResult = await t.api('GET', '/result', { token: w.token, query: { task_id: created.body.id } });
    expect(viaTask.headers['total-count']).toBe('2');
    expect(viaTask.body.map((x: { id: number }) => x.id)).toEqual(
      [...viaResult.body.map((x: { id: number }) => x.id)].reverse(),
    );
    for (const item of viaTask.body) {
      const same = viaResult.body.find((x: { id: number }) => x.id === item.id);
      const { task, organization, ...rest } = item;
      expect(task).toBe(created.body.id);
      expect(same.task.id).toBe(task);
      expect(same.organization.id).toBe(organization);
      expect(same).toMatchObject(rest);
    }
  });

  it('refuses root (result.v_glo) for a collaboration their organization is not part of', async () => {
    const w = await taskWorld(t);
    const created = await t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA]) });
    const r = await t.api('GET', `/task/${created.body.id}/result`, { token: t.rootToken });
    expect(r.status).toBe(401);
    expect(JSON.stringify(r.body)).not.toContain('input-for');
    expect((await t.api('GET', '/task/999999/result', { token: w.token })).status).toBe(404);
  });
});

describe('DELETE /task/{id}', () => {
  it('kills an unfinished task, deletes its results and ports, and keeps its sub-tasks', async () => {
    const w = await taskWorld(t);
    const parent = await t.fx.task(w.collab, [w.orgA, w.orgB], { initUserId: w.researcher.id });
    const child = await t.fx.task(w.collab, [w.orgB], { parentId: parent.id, runId: parent.runId });
    await t.ctx.dbh.db
      .insertInto('port')
      .values({ result_id: parent.resultIds[0] as number, port: 8080, label: 'api' })
      .execute();
    const r = await t.api('DELETE', `/task/${parent.id}`, { token: w.token });
    expect(r.status).toBe(200);
    expect(r.body.msg).toBeTruthy();

    // One emit to the users watching the collaboration and to the rooms of the organizations concerned (recorded per
    // room).
    const kill = events.named('kill_containers');
    expect(kill.map((k) => k.room)).toEqual([
      `federa:watch:collaboration_${w.collab}`,
      `collaboration_${w.collab}_organization_${w.orgA}`,
      `collaboration_${w.collab}_organization_${w.orgB}`,
    ]);
    for (const k of kill)
      expect(k.payload).toEqual({
        collaboration_id: w.collab,
        kill_list: [
          { task_id: parent.id, result_id: parent.resultIds[0], organization_id: w.orgA },
          { task_id: parent.id, result_id: parent.resultIds[1], organization_id: w.orgB },
          { task_id: child.id, result_id: child.resultIds[0], organization_id: w.orgB },
        ],
      });
    expect((await t.api('GET', `/task/${parent.id}`, { token: w.token })).status).toBe(404);
    expect((await t.api('GET', `/result/${parent.resultIds[0]}`, { token: w.token })).status).toBe(404);
    const ports = await t.ctx.dbh.db
      .selectFrom('port')
      .select('id')
      .where('result_id', 'in', parent.resultIds)
      .execute();
    expect(ports).toEqual([]);
    const kept = await t.api('GET', `/task/${child.id}`, { token: w.token });
    expect(kept.status).toBe(200);
    expect(kept.body.parent).toBeNull();
    expect(kept.body.status).toBe('failed');
  });

  it('deletes a finished task without a kill, and refuses other organizations (401) and unknown ids (404)', async () => {
    const w = await taskWorld(t);
    const done = await t.fx.task(w.collab, [w.orgA]);
    await t.ctx.dbh.db
      .updateTable('result')
      .set({ finished_at: '2024-01-01T00:00:00.000000', status: 'completed' })
      .where('task_id', '=', done.id)
      .execute();
    const stranger = await t.fx.user(await t.fx.organization(), { roles: ['Researcher'] });
    expect((await t.api('DELETE', `/task/${done.id}`, { token: await stranger.token() })).status).toBe(401);
    expect((await t.api('DELETE', `/task/${done.id}`, { token: w.token })).status).toBe(200);
    expect(events.named('kill_containers')).toEqual([]);
    expect((await t.api('DELETE', `/task/${done.id}`, { token: w.token })).status).toBe(404);
  });
});
