/** POST /task by an algorithm container: sub-tasks of its master task. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RecordingEventBus, startTestApp, taskBody, taskWorld, type TestApp } from '@federa/testing';
import { nowStored } from '../../http/datetime.js';

let t: TestApp;
const events = new RecordingEventBus();
beforeAll(async () => {
  t = await startTestApp({ events });
});
afterAll(async () => t.close());
beforeEach(() => events.clear());

describe('POST /task by an algorithm container', () => {
  async function master() {
    const w = await taskWorld(t);
    const parent = await t.api('POST', '/task', {
      token: w.token,
      body: taskBody(w.collab, [w.orgA, w.orgB]),
    });
    const [resultA] = (
      await t.ctx.dbh.db
        .selectFrom('result')
        .select('id')
        .where('task_id', '=', parent.body.id)
        .orderBy('id')
        .execute()
    ).map((x) => x.id);
    const container = await t.ctx.tokens.container({
      node_id: w.nodeA.id,
      organization_id: w.orgA,
      collaboration_id: w.collab,
      task_id: parent.body.id,
      image: 'harbor.example.org/algorithms/average:1.0',
      database: 'default',
    });
    return { ...w, parent: parent.body, container, resultA: resultA as number };
  }

  it("creates a sub-task with the master as parent, the master's run_id and init_user", async () => {
    const m = await master();
    events.clear();
    const sub = await t.api('POST', '/task', {
      token: m.container,
      body: taskBody(m.collab, [m.orgB], { name: 'partial' }),
    });
    expect(sub.status).toBe(201);
    expect(sub.body.parent).toMatchObject({ id: m.parent.id, link: `/api/task/${m.parent.id}` });
    expect(sub.body.run_id).toBe(m.parent.run_id);
    expect(sub.body.init_user).toBe(m.researcher.id);
    expect(sub.body.initiator).toBe(m.orgA);
    // Only the node of the organization with a run (and the users watching) hear of the sub-task.
    expect(events.named('new_task')).toEqual([
      { room: `federa:watch:collaboration_${m.collab}`, event: 'new_task', payload: sub.body.id },
      { room: `collaboration_${m.collab}_organization_${m.orgB}`, event: 'new_task', payload: sub.body.id },
    ]);

    const parent = await t.api('GET', `/task/${m.parent.id}`, { token: m.token });
    expect(parent.body.children).toEqual([
      { id: sub.body.id, link: `/api/task/${sub.body.id}`, methods: ['GET', 'DELETE'] },
    ]);
    const family = await t.api('GET', '/task', { token: m.token, query: { run_id: m.parent.run_id } });
    expect(family.body.map((x: { id: number }) => x.id)).toEqual([sub.body.id, m.parent.id]);
  });

  it('refuses (401) another image, another collaboration, or a complete parent', async () => {
    const m = await master();
    const other = await t.api('POST', '/task', {
      token: m.container,
      body: taskBody(m.collab, [m.orgB], { image: 'evil/image:1' }),
    });
    expect(other.status).toBe(401);
    const orgC = await t.fx.organization();
    const collab2 = await t.fx.collaboration([m.orgA, orgC]);
    await t.fx.node(m.orgA, collab2);
    const elsewhere = await t.api('POST', '/task', { token: m.container, body: taskBody(collab2, [m.orgA]) });
    expect(elsewhere.status).toBe(401);
    await t.ctx.dbh.db
      .updateTable('result')
      .set({ finished_at: nowStored() })
      .where('task_id', '=', m.parent.id)
      .execute();
    // Within the grace period the token is still accepted, and the complete parent is refused.
    const done = await t.api('POST', '/task', { token: m.container, body: taskBody(m.collab, [m.orgB]) });
    expect(done.status).toBe(401);
    expect(done.body.msg).toMatch(/complete/);
  });

  it('leaves no sub-task runnable after a kill, however its creation and the kill interleave', async () => {
    // A researcher kills the task while its algorithm is creating sub-tasks. A sub-task the container created
    // before the kill is killed with the tree; one it asks for after is refused (its parent is complete). None may
    // slip between the two and wait, pending, for its node to run it.
    for (let round = 0; round < 3; round++) {
      const m = await master();
      const subs = Array.from({ length: 8 }, (_, i) =>
        t.api('POST', '/task', {
          token: m.container,
          body: taskBody(m.collab, [m.orgB], { name: `part-${i}` }),
        }),
      );
      const kill = t.api('POST', '/kill/task', { token: m.token, body: { id: m.parent.id } });
      const answers = await Promise.all(subs);
      expect((await kill).status).toBe(200);
      for (const a of answers) expect([201, 401]).toContain(a.status);
      const open = await t.ctx.dbh.db
        .selectFrom('result')
        .innerJoin('task', 'task.id', 'result.task_id')
        .select(['task.id', 'result.status'])
        .where('task.run_id', '=', m.parent.run_id)
        .where('result.finished_at', 'is', null)
        .execute();
      expect(open).toEqual([]);
    }
  });
});
