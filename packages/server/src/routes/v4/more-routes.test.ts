/**
 * The 4.x-only routes beside studies and blobstream, as vantage6 4.14's client and store call them: changing a
 * linked store, column names by POST, asking who holds a user token, deleting an organization (refused with
 * dependents, or with them), and the answer that two-factor authentication is not offered. Bad input is a 400
 * naming the field, and nothing is stored. Runs on the dialect FEDERA_TEST_DB names.
 */
import { describe, expect, it } from 'vitest';
import type { TestApp, V4Call, V4World } from '@federa/testing';
import { useV4World } from '@federa/testing/hooks';

let t: TestApp;
let w: V4World['w'];
let v4: V4Call;
useV4World((world) => ({ t, w, v4 } = world));

const count = async (table: 'organization' | 'task' | 'result' | 'node' | 'user' | 'role' | 'member') =>
  Number(
    (
      await t.ctx.dbh.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('PATCH /algorithmstore/{id}', () => {
  it('renames a store and changes the collaboration it serves, in 4.x shape; its address stays', async () => {
    const made = await v4('POST', '/algorithmstore', {
      body: {
        algorithm_store_url: 'https://store.example.org/api',
        name: 'first',
        collaboration_id: [w.collab],
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const id = made.body.id as number;
    const renamed = await v4('PATCH', `/algorithmstore/${id}`, { body: { name: 'renamed' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toEqual({
      id,
      name: 'renamed',
      url: 'https://store.example.org/api',
      collaborations: `/v4/api/collaboration?algorithm_store_id=${id}`,
    });
    const all = await v4('PATCH', `/algorithmstore/${id}`, { body: { collaboration_id: null } });
    expect(all.body.collaborations).toBeNull();
    expect((await v4('GET', `/algorithmstore/${id}`)).body.name).toBe('renamed');
  });

  it('names a bad field, a missing collaboration or store, and refuses a researcher; nothing changes', async () => {
    const id = (
      await v4('POST', '/algorithmstore', {
        body: { algorithm_store_url: 'https://other.example.org/api', name: 'kept' },
      })
    ).body.id as number;
    const url = await v4('PATCH', `/algorithmstore/${id}`, {
      body: { algorithm_store_url: 'https://x.org' },
    });
    expect(url.status).toBe(400);
    expect(url.body.msg).toContain('algorithm_store_url');
    const name = await v4('PATCH', `/algorithmstore/${id}`, { body: { name: '' } });
    expect(name.status).toBe(400);
    expect(name.body.msg).toContain('name');
    const collab = await v4('PATCH', `/algorithmstore/${id}`, {
      body: { name: 'x', collaboration_id: 999999 },
    });
    expect(collab.status).toBe(404);
    expect(collab.body.msg).toBe('Collaboration with id=999999 not found');
    expect((await v4('PATCH', '/algorithmstore/999999', { body: { name: 'x' } })).status).toBe(404);
    const researcher = await v4('PATCH', `/algorithmstore/${id}`, { token: w.token, body: { name: 'x' } });
    expect(researcher.status).toBe(401);
    expect((await v4('GET', `/algorithmstore/${id}`)).body.name).toBe('kept');
  });
});

describe('POST /column', () => {
  it("answers the names the collaboration's nodes shared, under the rule of GET /column", async () => {
    await t.ctx.dbh.db
      .insertInto('node_config')
      .values(['age', 'bmi'].map((value) => ({ node_id: w.nodeA.id, key: 'columns.default', value })))
      .execute();
    const body = { db_label: 'default', collaboration_id: w.collab, organizations: [{ id: w.orgA }] };
    const r = await v4('POST', '/column', { token: w.token, body });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ columns: ['age', 'bmi'] });
    const none = await v4('POST', '/column', { token: w.token, body: { ...body, db_label: 'visits' } });
    expect(none.status).toBe(404);
    expect(none.body.msg).toMatch(
      /^No node of collaboration \d+ has shared the column names of database 'visits'/,
    );
    const outsider = await (await t.fx.user(await t.fx.organization(), { roles: ['Researcher'] })).token();
    expect((await v4('POST', '/column', { token: outsider, body })).status).toBe(401);
  });

  it('names a missing or wrong field', async () => {
    const missing = await v4('POST', '/column', { body: { collaboration_id: w.collab, organizations: [] } });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toContain('db_label');
    const wrong = await v4('POST', '/column', {
      body: { db_label: 'default', collaboration_id: 'one', organizations: [] },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.msg).toContain('collaboration_id');
  });
});

describe('POST /token/user/validate', () => {
  it('says who holds a user token, as a 4.x store asks it, and refuses a node token', async () => {
    const r = await v4('POST', '/token/user/validate', { token: w.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      user_id: w.researcher.id,
      username: w.researcher.username,
      organization_id: w.orgA,
    });
    const node = await v4('POST', '/token/user/validate', { token: await w.nodeA.token() });
    expect(node.status).toBe(401);
    expect((await v4('POST', '/token/user/validate', { token: 'not-a-token' })).status).toBe(422);
  });
});

describe('/recover/2fa', () => {
  it('answers that two-factor authentication is not offered, whoever asks', async () => {
    for (const [path, body] of [
      ['/recover/2fa/lost', { username: 'root', password: 'wrong' }],
      ['/recover/2fa/reset', { reset_token: 'abc' }],
    ] as const) {
      const res = await t.app.inject({ method: 'POST', url: `/v4/api${path}`, payload: body });
      expect(res.statusCode).toBe(501);
      expect(res.json().msg).toMatch(/^This server does not offer two-factor authentication/);
    }
    const bad = await t.app.inject({
      method: 'POST',
      url: '/v4/api/recover/2fa/lost',
      payload: { user: 'x' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().msg).toContain('user');
  });
});

describe('DELETE /organization/{id}', () => {
  it('deletes an organization nothing refers to; it leaves its collaborations', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org, w.orgA]);
    const r = await v4('DELETE', `/organization/${org}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await v4('GET', `/organization/${org}`)).status).toBe(404);
    const members = await t.ctx.dbh.db
      .selectFrom('member')
      .select('organization_id')
      .where('collaboration_id', '=', collab)
      .execute();
    expect(members.map((m) => m.organization_id)).toEqual([w.orgA]);
  });

  it('refuses an organization with dependents, naming them, unless delete_dependents=true', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org, w.orgA]);
    const node = await t.fx.node(org, collab);
    const user = await t.fx.user(org, { roles: ['Researcher'] });
    const userToken = await user.token();
    await t.fx.role(['task.v_org'], org);
    const own = await t.fx.task(collab, [org, w.orgA], { initiatorId: org });
    const theirs = await t.fx.task(collab, [w.orgA, org], { initiatorId: w.orgA });
    const before = { results: await count('result'), tasks: await count('task') };

    const refused = await v4('DELETE', `/organization/${org}`);
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toBe(
      `Organization ${org} has dependents: 2 runs, 1 tasks, 1 nodes, 1 users, 1 roles. Send delete_dependents=true to delete them with it.`,
    );
    expect(await count('result')).toBe(before.results);

    const bad = await v4('DELETE', `/organization/${org}?delete_dependents=maybe`);
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toContain('delete_dependents');

    // As the 4.x client sends it: Python's str(True).
    const done = await v4('DELETE', `/organization/${org}?delete_dependents=True`);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    // Its own task with both its runs, and its run in the other task; the other task keeps its other run.
    expect(await count('task')).toBe(before.tasks - 1);
    expect(await count('result')).toBe(before.results - 3);
    expect((await v4('GET', `/task/${own.id}`)).status).toBe(404);
    const runs = await t.ctx.dbh.db
      .selectFrom('result')
      .select('id')
      .where('task_id', 'in', [own.id, theirs.id])
      .execute();
    expect(runs.map((r) => r.id)).toEqual([theirs.resultIds[0]]);
    expect((await v4('GET', `/node/${node.id}`)).status).toBe(404);
    expect((await v4('GET', `/user/${user.id}`)).status).toBe(404);
    // The deleted user's session ended with its account.
    expect((await v4('GET', '/collaboration', { token: userToken })).status).toBe(401);
    const left = await t.ctx.dbh.db
      .selectFrom('role')
      .select('id')
      .where('organization_id', '=', org)
      .execute();
    expect(left).toEqual([]);
  });

  it('is the root user’s only, refuses the caller’s own organization, and names a missing one', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(w.orgB, { roles: ['Organization Admin'] });
    const refused = await v4('DELETE', `/organization/${org}`, { token: await admin.token() });
    expect(refused.status).toBe(401);
    expect(refused.body.msg).toBe('Only the root user (every rule) may delete an organization.');
    const rootOrg = (await v4('GET', '/user?username=root')).body.data[0]?.organization.id as number;
    const own = await v4('DELETE', `/organization/${rootOrg}?delete_dependents=true`);
    expect(own.status).toBe(400);
    expect(own.body.msg).toBe('You cannot delete your own organization.');
    expect((await v4('DELETE', '/organization/999999')).status).toBe(404);
    expect(await count('organization')).toBeGreaterThan(0);
    expect((await v4('GET', `/organization/${org}`)).status).toBe(200);
  });
});
