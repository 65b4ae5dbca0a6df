/** POST /task by a user: what is stored and announced. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  queriesDuring,
  RecordingEventBus,
  startTestApp,
  taskBody,
  TEST_DIALECT,
  taskWorld,
  type TestApp,
} from '@federa/testing';

let t: TestApp;
const events = new RecordingEventBus();
beforeAll(async () => {
  t = await startTestApp({ events });
});
afterAll(async () => t.close());
beforeEach(() => events.clear());

describe('POST /task by a user', () => {
  it('creates the task with one result per organization holding its own input, and announces it', async () => {
    const w = await taskWorld(t);
    const r = await t.api('POST', '/task', {
      token: w.token,
      body: taskBody(w.collab, [w.orgA, w.orgB], { database: 'postgres-db' }),
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      name: 'average',
      description: 'mean age',
      image: 'harbor.example.org/algorithms/average:1.0',
      database: 'postgres-db',
      initiator: w.orgA,
      init_org: w.orgA,
      init_user: w.researcher.id,
      collaboration: { id: w.collab, link: `/api/collaboration/${w.collab}` },
      parent: null,
      children: null,
      complete: false,
      status: 'pending',
    });
    expect(r.body.results).toHaveLength(2);

    const got = await t.api('GET', `/task/${r.body.id}`, { token: w.token });
    expect(got.body.database).toBe('postgres-db');

    const results = await t.api('GET', `/task/${r.body.id}/result`, { token: w.token });
    expect(results.status).toBe(200);
    const inputs = Object.fromEntries(
      results.body.map((x: { organization: number; input: string }) => [x.organization, x.input]),
    );
    expect(inputs).toEqual({ [w.orgA]: `input-for-${w.orgA}`, [w.orgB]: `input-for-${w.orgB}` });
    expect(
      results.body.every(
        (x: { status: string; task: number }) => x.status === 'pending' && x.task === r.body.id,
      ),
    ).toBe(true);

    const room = `collaboration_${w.collab}`;
    // task_created and new_task: the users watching the collaboration, and the nodes of the organizations with a run
    // (task_created: and of the initiator, here orgA too).
    expect(events.emitted.map((e) => [e.room, e.event])).toEqual([
      [`federa:watch:${room}`, 'task_created'],
      [`${room}_organization_${w.orgA}`, 'task_created'],
      [`${room}_organization_${w.orgB}`, 'task_created'],
      [`federa:watch:${room}`, 'new_task'],
      [`${room}_organization_${w.orgA}`, 'new_task'],
      [`${room}_organization_${w.orgB}`, 'new_task'],
    ]);
    expect(events.named('task_created')[0]?.payload).toEqual({
      task_id: r.body.id,
      run_id: r.body.run_id,
      collaboration_id: w.collab,
      init_org_id: w.orgA,
    });
    expect(events.named('new_task')[0]?.payload).toBe(r.body.id);
  });

  it('reads and writes the database in four statements, the checks of the receivers in one', async () => {
    const w = await taskWorld(t);
    const body = taskBody(w.collab, [w.orgA, w.orgB]);
    expect((await t.api('POST', '/task', { token: w.token, body })).status).toBe(201);
    const { result, queries } = await queriesDuring(t, () =>
      t.api('POST', '/task', { token: w.token, body }),
    );
    expect(result.status).toBe(201);
    // The collaboration with the receivers' membership and nodes, the task with its run id, its runs, and the task
    // for the answer; the hint of offline nodes comes from the checks (nine statements before). PostgreSQL reads
    // the caller too: its read cache keeps no caller across writes (docs/performance.md).
    const statements = queries.filter((q) => !/^update "user" set "last_seen"/.test(q));
    expect(statements, statements.join('\n')).toHaveLength(TEST_DIALECT === 'postgres' ? 5 : 4);
  });

  it('says in the answer which receiving nodes are offline; the task still queues', async () => {
    const w = await taskWorld(t);
    const nodeIdOf = async (org: number) =>
      (
        await t.ctx.dbh.db
          .selectFrom('node')
          .select('id')
          .where('organization_id', '=', org)
          .where('collaboration_id', '=', w.collab)
          .executeTakeFirstOrThrow()
      ).id;
    await t.ctx.dbh.db
      .updateTable('node')
      .set({ status: 'online' })
      .where('id', '=', await nodeIdOf(w.orgA))
      .execute();
    const r = await t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA, w.orgB]) });
    expect(r.status).toBe(201);
    const b = await t.ctx.dbh.db
      .selectFrom('node')
      .innerJoin('organization', 'organization.id', 'node.organization_id')
      .select(['node.name as node', 'organization.name as org'])
      .where('node.id', '=', await nodeIdOf(w.orgB))
      .executeTakeFirstOrThrow();
    expect(r.body.warning).toBe(
      `Offline node(s): "${b.node}" of ${b.org} (organization ${w.orgB}). The task waits and runs when they connect. Ask their node admins to start them (vnode start).`,
    );
    expect(r.body.results).toHaveLength(2);
    const onlyOnline = await t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA]) });
    expect(onlyOnline.status).toBe(201);
    expect(onlyOnline.body).not.toHaveProperty('warning');
  });

  it('gives every task a user creates a new run_id', async () => {
    const w = await taskWorld(t);
    const first = await t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA]) });
    const second = await t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA]) });
    expect(second.body.run_id).toBeGreaterThan(first.body.run_id);
    const max = await t.ctx.dbh.db
      .selectFrom('task')
      .select((eb) => eb.fn.max('run_id').as('m'))
      .executeTakeFirstOrThrow();
    expect(second.body.run_id).toBe(Number(max.m));
  });

  it('stores a JSON object input as its JSON text', async () => {
    const w = await taskWorld(t);
    const r = await t.api('POST', '/task', {
      token: w.token,
      body: {
        collaboration_id: w.collab,
        organizations: [{ id: w.orgA, input: { method: 'avg' } }],
        image: 'algorithm',
      },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: '', description: '', image: 'algorithm', database: '' });
    const results = await t.api('GET', `/task/${r.body.id}/result`, { token: w.token });
    expect(JSON.parse(results.body[0].input)).toEqual({ method: 'avg' });
  });
});
