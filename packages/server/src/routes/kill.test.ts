import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test-support/harness.js';
import { RecordingEventBus } from '../test-support/events.js';

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
    expect(events.emitted).toEqual([
      {
        room: `collaboration_${w.collab}`,
        event: 'kill_containers',
        payload: {
          collaboration_id: w.collab,
          kill_list: [
            { task_id: parent.id, result_id: parent.resultIds[0], organization_id: w.orgA },
            { task_id: parent.id, result_id: parent.resultIds[1], organization_id: w.orgB },
            { task_id: child.id, result_id: child.resultIds[0], organization_id: w.orgA },
            { task_id: child.id, result_id: child.resultIds[1], organization_id: w.orgB },
          ],
        },
      },
    ]);
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

  it('refuses a missing id (400), an unknown task (404), and a user without event.c_* or of another organization (401)', async () => {
    const w = await world();
    const task = await t.fx.task(w.collab, [w.orgA]);
    const missing = await t.api('POST', '/kill/task', { token: w.token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toContain('id');
    expect((await t.api('POST', '/kill/task', { token: w.token, body: { id: 999999 } })).status).toBe(404);
    const researcher = await t.fx.user(w.orgA, { roles: ['Researcher'] });
    expect(
      (await t.api('POST', '/kill/task', { token: await researcher.token(), body: { id: task.id } })).status,
    ).toBe(401);
    const otherAdmin = await t.fx.user(await t.fx.organization(), { roles: ['Organization Admin'] });
    expect(
      (await t.api('POST', '/kill/task', { token: await otherAdmin.token(), body: { id: task.id } })).status,
    ).toBe(401);
    expect(events.emitted).toEqual([]);
  });
});

describe('POST /kill/node/tasks', () => {
  it('tells an online node to kill all its runs', async () => {
    const w = await world();
    await t.ctx.dbh.db.updateTable('node').set({ status: 'online' }).where('id', '=', w.nodeA.id).execute();
    const r = await t.api('POST', '/kill/node/tasks', { token: w.token, body: { id: w.nodeA.id } });
    expect(r.status).toBe(200);
    expect(events.emitted).toEqual([
      {
        room: `collaboration_${w.collab}`,
        event: 'kill_containers',
        payload: { node_id: w.nodeA.id, collaboration_id: w.collab },
      },
    ]);
  });

  it('refuses an offline node (400), an unknown node (404), and a node of another organization without task.c_glo (401)', async () => {
    const w = await world();
    expect(
      (await t.api('POST', '/kill/node/tasks', { token: w.token, body: { id: w.nodeA.id } })).status,
    ).toBe(400);
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
});
