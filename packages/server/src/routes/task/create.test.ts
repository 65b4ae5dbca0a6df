import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  countTaskRows,
  queriesDuring,
  RecordingEventBus,
  startTestApp,
  taskBody,
  TEST_DIALECT,
  taskWorld,
  type TestApp,
} from '@federa/testing';
import { nowStored } from '../../http/datetime.js';

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

  it.each([
    ['missing', undefined, /must not be empty/],
    ['empty', '', /must not be empty/],
    ['null', null, /must not be empty/],
    ['blank', '   ', /whitespace/],
    ['with a newline', 'alpine\n', /whitespace/],
    ['with a NUL', 'alp\u0000ine', /control characters/],
    ['in uppercase', 'Harbor.example.org/Algo', /invalid path component 'Algo'/],
    ['climbing with ..', '../../images/x', /invalid registry host '\.\.'/],
    ['with .. inside', 'a/../b', /invalid path component '\.\.'/],
    ['huge', 'a'.repeat(100_000), /at most 512/],
    ['with a bad tag', 'algorithm:-1', /invalid tag/],
  ])(
    'refuses an image that is %s with 400 naming the field, and stores nothing',
    async (_what, image, why) => {
      const w = await taskWorld(t);
      const before = await countTaskRows(t);
      const r = await t.api('POST', '/task', {
        token: w.token,
        body: { ...taskBody(w.collab, [w.orgA]), image },
      });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('validation_failed');
      expect(r.body.msg).toMatch(/^field 'image' /);
      expect(r.body.msg).toMatch(why);
      expect(r.body.message.image).toMatch(why);
      expect(await countTaskRows(t)).toEqual(before);
      expect(events.named('new_task')).toEqual([]);
    },
  );

  it('refuses a task for an organization without a node in the collaboration, listing it, and stores nothing', async () => {
    const w = await taskWorld(t);
    const orgC = await t.fx.organization();
    await t.ctx.dbh.db
      .insertInto('member')
      .values({ collaboration_id: w.collab, organization_id: orgC })
      .execute();
    const before = await countTaskRows(t);
    const r = await t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA, orgC]) });
    expect(r.status).toBe(400);
    expect(r.body.msg).toContain(String(orgC));
    expect(r.body.msg).not.toContain(`${w.orgA},`);
    expect(await countTaskRows(t)).toEqual(before);
    expect(events.emitted).toEqual([]);
  });

  it('refuses a superuser (root, task.c_glo) posting to a collaboration their organization is not part of, and stores nothing', async () => {
    const w = await taskWorld(t);
    const before = await countTaskRows(t);
    const r = await t.api('POST', '/task', {
      token: t.rootToken,
      body: taskBody(w.collab, [w.orgA, w.orgB]),
    });
    expect(r.status).toBe(401);
    expect(r.body.msg).toMatch(/not a member/);
    expect(await countTaskRows(t)).toEqual(before);
    expect(events.emitted).toEqual([]);
  });

  it('validates in order: unknown collaboration 404, non-member organization 400, missing or repeated organizations 400', async () => {
    const w = await taskWorld(t);
    expect((await t.api('POST', '/task', { token: w.token, body: taskBody(999_999, [w.orgA]) })).status).toBe(
      404,
    );
    const outsider = await t.fx.organization();
    const notMember = await t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [outsider]) });
    expect(notMember.status).toBe(400);
    expect(notMember.body.msg).toContain(String(outsider));
    const missing = await t.api('POST', '/task', { token: w.token, body: { collaboration_id: w.collab } });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toContain('organizations');
    const twice = await t.api('POST', '/task', {
      token: w.token,
      body: taskBody(w.collab, [w.orgA, w.orgA]),
    });
    expect(twice.status).toBe(400);
    const badId = await t.api('POST', '/task', {
      token: w.token,
      body: { collaboration_id: 'x', organizations: [] },
    });
    expect(badId.status).toBe(400);
    expect(badId.body.msg).toContain('collaboration_id');
  });

  it('refuses a receiving organization without a node in the collaboration, naming it, and stores nothing', async () => {
    const w = await taskWorld(t);
    const nodeless = await t.fx.organization();
    await t.ctx.dbh.db
      .insertInto('member')
      .values({ collaboration_id: w.collab, organization_id: nodeless })
      .execute();
    const before = await countTaskRows(t);
    const r = await t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA, nodeless]) });
    expect(r.status).toBe(400);
    expect(r.body.msg).toBe(
      `Cannot create this task: organization(s) ${nodeless} have no node registered in collaboration ${w.collab}. Register a node for them or leave them out.`,
    );
    expect(await countTaskRows(t)).toEqual(before);
    expect(events.emitted).toEqual([]);
  });

  it('refuses a user without task.c_* with 401', async () => {
    const w = await taskWorld(t);
    const viewer = await t.fx.user(w.orgA, { roles: ['Viewer'] });
    const r = await t.api('POST', '/task', {
      token: await viewer.token(),
      body: taskBody(w.collab, [w.orgA]),
    });
    expect(r.status).toBe(401);
  });

  it("applies the receiving nodes' policies (allowed_users / allowed_orgs)", async () => {
    const w = await taskWorld(t);
    const db = t.ctx.dbh.db;
    await db
      .insertInto('node_config')
      .values({ node_id: w.nodeB.id, key: 'allowed_users', value: '999999' })
      .execute();
    const refused = await t.api('POST', '/task', {
      token: w.token,
      body: taskBody(w.collab, [w.orgA, w.orgB]),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toContain(String(w.orgB));
    // Organizations are matched by id or by name.
    const name = (
      await db.selectFrom('organization').select('name').where('id', '=', w.orgA).executeTakeFirstOrThrow()
    ).name as string;
    await db
      .insertInto('node_config')
      .values({ node_id: w.nodeB.id, key: 'allowed_orgs', value: name })
      .execute();
    expect(
      (await t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA, w.orgB]) })).status,
    ).toBe(201);
    await db.deleteFrom('node_config').where('node_id', '=', w.nodeB.id).execute();
    await db
      .insertInto('node_config')
      .values({ node_id: w.nodeB.id, key: 'allowed_users', value: String(w.researcher.id) })
      .execute();
    expect(
      (await t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA, w.orgB]) })).status,
    ).toBe(201);
  });

  it('with master=true gives only the own organization a result; without it among the organizations: 400, nothing stored', async () => {
    const w = await taskWorld(t);
    const r = await t.api('POST', '/task', {
      token: w.token,
      body: taskBody(w.collab, [w.orgA, w.orgB], { master: true }),
    });
    expect(r.status).toBe(201);
    const results = await t.api('GET', `/task/${r.body.id}/result`, { token: w.token });
    expect(results.body.map((x: { organization: number }) => x.organization)).toEqual([w.orgA]);
    const before = await countTaskRows(t);
    const refused = await t.api('POST', '/task', {
      token: w.token,
      body: taskBody(w.collab, [w.orgB], { master: true }),
    });
    expect(refused.status).toBe(400);
    expect(await countTaskRows(t)).toEqual(before);
  });
});

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
