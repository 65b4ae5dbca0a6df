import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RecordingEventBus, startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
const events = new RecordingEventBus();
beforeAll(async () => {
  t = await startTestApp({ events });
});
afterAll(async () => t.close());
beforeEach(() => events.clear());

async function world() {
  const orgA = await t.fx.organization();
  const orgB = await t.fx.organization();
  const collab = await t.fx.collaboration([orgA, orgB]);
  const nodeA = await t.fx.node(orgA, collab);
  const nodeB = await t.fx.node(orgB, collab);
  const admin = await t.fx.user(orgA, { roles: ['Organization Admin'] });
  return { orgA, orgB, collab, nodeA, nodeB, admin, token: await admin.token() };
}

describe('POST /kill/task', () => {
  it('sends one kill_list entry per result with its own task id, and marks the open runs killed', async () => {
    const w = await world();
    const parent = await t.fx.task(w.collab, [w.orgA, w.orgB]);
    const child = await t.fx.task(w.collab, [w.orgA, w.orgB], { parentId: parent.id, runId: parent.runId });
    const db = t.ctx.dbh.db;
    await db
      .updateTable('result')
      .set({ status: 'completed', finished_at: '2024-01-01T00:00:00.000000', result: 'ZG9uZQ==' })
      .where('id', '=', child.resultIds[1] as number)
      .execute();

    const r = await t.api('POST', '/kill/task', { token: w.token, body: { id: parent.id } });
    expect(r.status).toBe(200);
    expect(r.body.msg).toBeTruthy();
    const payload = {
      collaboration_id: w.collab,
      kill_list: [
        { task_id: parent.id, result_id: parent.resultIds[0], organization_id: w.orgA },
        { task_id: parent.id, result_id: parent.resultIds[1], organization_id: w.orgB },
        { task_id: child.id, result_id: child.resultIds[0], organization_id: w.orgA },
        { task_id: child.id, result_id: child.resultIds[1], organization_id: w.orgB },
      ],
    };
    // One emit to the users watching the collaboration and to the rooms of the organizations concerned (their nodes
    // and researchers).
    expect(events.emitted).toEqual(
      [
        `federa:watch:collaboration_${w.collab}`,
        `collaboration_${w.collab}_organization_${w.orgA}`,
        `collaboration_${w.collab}_organization_${w.orgB}`,
      ].map((room) => ({ room, event: 'kill_containers', payload })),
    );
    const rows = await db
      .selectFrom('result')
      .select(['id', 'status', 'finished_at'])
      .where('task_id', 'in', [parent.id, child.id])
      .orderBy('id')
      .execute();
    expect(rows.map((x) => x.status)).toEqual([
      'killed by user',
      'killed by user',
      'killed by user',
      'completed',
    ]);
    expect(rows.every((x) => x.finished_at !== null)).toBe(true);
    expect((await t.api('GET', `/task/${parent.id}`, { token: w.token })).body).toMatchObject({
      complete: true,
      status: 'failed',
    });

    const again = await t.api('POST', '/kill/task', { token: w.token, body: { id: parent.id } });
    expect(again.status).toBe(400);
  });

  it('refuses a missing id (400), an unknown task (404), and a user of another organization (401)', async () => {
    const w = await world();
    const task = await t.fx.task(w.collab, [w.orgA]);
    const missing = await t.api('POST', '/kill/task', { token: w.token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toContain('id');
    expect((await t.api('POST', '/kill/task', { token: w.token, body: { id: 999999 } })).status).toBe(404);
    const otherAdmin = await t.fx.user(await t.fx.organization(), { roles: ['Organization Admin'] });
    expect(
      (await t.api('POST', '/kill/task', { token: await otherAdmin.token(), body: { id: task.id } })).status,
    ).toBe(401);
    expect(events.emitted).toEqual([]);
  });

  it("lets whoever may post a task kill it: a Researcher kills their organization's tasks, not others'", async () => {
    const w = await world();
    const own = await t.fx.task(w.collab, [w.orgA, w.orgB], { initiatorId: w.orgA });
    const theirs = await t.fx.task(w.collab, [w.orgA, w.orgB], { initiatorId: w.orgB });
    const researcher = await t.fx.user(w.orgA, { roles: ['Researcher'] });
    const viewer = await t.fx.user(w.orgA, { roles: ['Viewer'] });
    const token = await researcher.token();

    const refused = await t.api('POST', '/kill/task', { token, body: { id: theirs.id } });
    expect(refused.status).toBe(401);
    expect(refused.body.msg).toContain('task CREATE ORGANIZATION and a task your organization posted');
    expect(
      (await t.api('POST', '/kill/task', { token: await viewer.token(), body: { id: own.id } })).status,
    ).toBe(401);
    expect(events.emitted).toEqual([]);

    const killed = await t.api('POST', '/kill/task', { token, body: { id: own.id } });
    expect(killed.status).toBe(200);
    const runs = await t.api('GET', '/result', { token, query: { task_id: own.id } });
    expect(runs.body.map((r: { status: string }) => r.status)).toEqual(['killed by user', 'killed by user']);
    // The Organization Admin of a member organization (event CREATE ORGANIZATION, as in vantage6 3.x) kills any
    // task of the collaboration.
    expect((await t.api('POST', '/kill/task', { token: w.token, body: { id: theirs.id } })).status).toBe(200);
  });

  it('kills the whole tree at every depth, and answers 400 only when nothing in it is open', async () => {
    const w = await world();
    const root = await t.fx.task(w.collab, [w.orgA]);
    const db = t.ctx.dbh.db;
    await db
      .updateTable('result')
      .set({ status: 'completed', finished_at: '2024-01-01T00:00:00.000000', result: 'ZG9uZQ==' })
      .where('id', '=', root.resultIds[0] as number)
      .execute();
    const sub = await t.fx.task(w.collab, [w.orgB], { parentId: root.id, runId: root.runId });
    const subSub = await t.fx.task(w.collab, [w.orgA, w.orgB], { parentId: sub.id, runId: root.runId });
    const subSubSub = await t.fx.task(w.collab, [w.orgB], { parentId: subSub.id, runId: root.runId });

    // The root's own run has finished, but its descendants have not: there is something to kill.
    const r = await t.api('POST', '/kill/task', { token: w.token, body: { id: root.id } });
    expect(r.status).toBe(200);
    const [event] = events.named('kill_containers');
    expect(event?.payload).toEqual({
      collaboration_id: w.collab,
      kill_list: [
        { task_id: root.id, result_id: root.resultIds[0], organization_id: w.orgA },
        { task_id: sub.id, result_id: sub.resultIds[0], organization_id: w.orgB },
        { task_id: subSub.id, result_id: subSub.resultIds[0], organization_id: w.orgA },
        { task_id: subSub.id, result_id: subSub.resultIds[1], organization_id: w.orgB },
        { task_id: subSubSub.id, result_id: subSubSub.resultIds[0], organization_id: w.orgB },
      ],
    });
    for (const task of [sub, subSub, subSubSub])
      expect((await t.api('GET', `/task/${task.id}`, { token: w.token })).body).toMatchObject({
        complete: true,
        status: 'failed',
      });
    const rows = await db
      .selectFrom('result')
      .select(['status'])
      .where('task_id', 'in', [root.id, sub.id, subSub.id, subSubSub.id])
      .orderBy('id')
      .execute();
    expect(rows.map((x) => x.status)).toEqual([
      'completed',
      'killed by user',
      'killed by user',
      'killed by user',
      'killed by user',
    ]);
    const again = await t.api('POST', '/kill/task', { token: w.token, body: { id: root.id } });
    expect(again.status).toBe(400);
    expect(again.body.msg).toBe(
      `Task ${root.id} and its sub-tasks have already finished; there is nothing to kill.`,
    );
  });

  it("moves no killed run back: the node's later reports are refused, its kill confirmation accepted", async () => {
    const w = await world();
    const task = await t.fx.task(w.collab, [w.orgA]);
    const id = task.resultIds[0] as number;
    const node = await w.nodeA.token();
    await t.api('PATCH', `/result/${id}`, { token: node, body: { status: 'active' } });
    expect((await t.api('POST', '/kill/task', { token: w.token, body: { id: task.id } })).status).toBe(200);
    const late = await t.api('PATCH', `/result/${id}`, {
      token: node,
      body: { status: 'completed', result: 'b3V0', log: 'done', finished_at: '2024-01-01T00:00:00' },
    });
    expect(late.status).toBe(400);
    expect(late.body.msg).toContain("cannot go from 'killed by user' to 'completed'");
    const confirm = await t.api('PATCH', `/result/${id}`, {
      token: node,
      body: { status: 'killed by user' },
    });
    expect(confirm.status).toBe(200);
    expect(confirm.body).toMatchObject({ status: 'killed by user', result: null });
    expect(confirm.body.finished_at).not.toBeNull();
  });
});

describe('POST /kill/node/tasks', () => {
  it('tells an online node to kill all its runs', async () => {
    const w = await world();
    await t.ctx.dbh.db.updateTable('node').set({ status: 'online' }).where('id', '=', w.nodeA.id).execute();
    const r = await t.api('POST', '/kill/node/tasks', { token: w.token, body: { id: w.nodeA.id } });
    expect(r.status).toBe(200);
    expect(events.emitted).toEqual(
      [`federa:watch:collaboration_${w.collab}`, `collaboration_${w.collab}_organization_${w.orgA}`].map(
        (room) => ({
          room,
          event: 'kill_containers',
          payload: { node_id: w.nodeA.id, collaboration_id: w.collab },
        }),
      ),
    );
  });

  it('marks the open runs of an offline node killed (it stops them when it reconnects); refuses an unknown node (404) and a node of another organization without task.c_glo (401)', async () => {
    const w = await world();
    const task = await t.fx.task(w.collab, [w.orgA, w.orgB]);
    const offline = await t.api('POST', '/kill/node/tasks', { token: w.token, body: { id: w.nodeA.id } });
    expect(offline.status).toBe(200);
    expect(offline.body.msg).toBe(
      `Node ${w.nodeA.id} is offline: its 1 open runs are marked killed, and it stops what still runs when it reconnects.`,
    );
    const runs = await t.api('GET', '/result', { token: w.token, query: { task_id: task.id } });
    expect(
      runs.body
        .map((r: { id: number; status: string }) => [r.id, r.status])
        .sort((a: number[], b: number[]) => (a[0] as number) - (b[0] as number)),
    ).toEqual([
      [task.resultIds[0], 'killed by user'],
      [task.resultIds[1], 'pending'],
    ]);
    expect((await t.api('POST', '/kill/node/tasks', { token: w.token, body: { id: 999999 } })).status).toBe(
      404,
    );
    await t.ctx.dbh.db.updateTable('node').set({ status: 'online' }).where('id', '=', w.nodeB.id).execute();
    expect(
      (await t.api('POST', '/kill/node/tasks', { token: w.token, body: { id: w.nodeB.id } })).status,
    ).toBe(401);
    expect(
      (await t.api('POST', '/kill/node/tasks', { token: t.rootToken, body: { id: w.nodeB.id } })).status,
    ).toBe(200);
  });

  it("kills for a Researcher only what /kill/task would: a node running another organization's task is refused, whole", async () => {
    const w = await world();
    const researcher = await t.fx.user(w.orgA, { roles: ['Researcher'] });
    const token = await researcher.token();
    const own = await t.fx.task(w.collab, [w.orgA, w.orgB], { initiatorId: w.orgA });
    // A sub-task posted by B's container within A's run counts as A's (as /kill/task kills A's tree).
    const sub = await t.fx.task(w.collab, [w.orgA], {
      initiatorId: w.orgB,
      parentId: own.id,
      runId: own.runId,
    });
    const theirs = await t.fx.task(w.collab, [w.orgA, w.orgB], { initiatorId: w.orgB });
    const status = async (id: number) =>
      (
        await t.ctx.dbh.db
          .selectFrom('result')
          .select('status')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).status;

    const refused = await t.api('POST', '/kill/node/tasks', { token, body: { id: w.nodeA.id } });
    expect(refused.status).toBe(401);
    expect(refused.body.msg).toContain(`it runs task(s) ${theirs.id} of other organizations`);
    expect((await t.api('POST', '/kill/task', { token, body: { id: theirs.id } })).status).toBe(401);
    expect(events.emitted).toEqual([]);
    for (const id of [own.resultIds[0]!, sub.resultIds[0]!, theirs.resultIds[0]!])
      expect(await status(id)).toBe('pending');

    // Once B's task is over, the Researcher may stop A's runs on A's node, and exactly those.
    await t.api('POST', '/kill/task', { token: t.rootToken, body: { id: theirs.id } });
    events.clear();
    const done = await t.api('POST', '/kill/node/tasks', { token, body: { id: w.nodeA.id } });
    expect(done.status).toBe(200);
    expect(await status(own.resultIds[0]!)).toBe('killed by user');
    expect(await status(sub.resultIds[0]!)).toBe('killed by user');
    expect(await status(own.resultIds[1]!)).toBe('pending');
    expect(events.emitted.map((e) => e.payload)).toContainEqual({
      kill_list: [
        { task_id: own.id, result_id: own.resultIds[0], organization_id: w.orgA },
        { task_id: sub.id, result_id: sub.resultIds[0], organization_id: w.orgA },
      ],
      collaboration_id: w.collab,
    });
  });
});
