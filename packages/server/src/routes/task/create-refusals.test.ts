/** POST /task by a user, refused: invalid images, organizations, rights and node policies; nothing stored. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  countTaskRows,
  RecordingEventBus,
  startTestApp,
  taskBody,
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

describe('POST /task by a user, refused', () => {
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
