import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
let rootOrg: number;
beforeAll(async () => {
  t = await startTestApp();
  const root = await t.api('GET', '/user', { token: t.rootToken, query: { username: 'root' } });
  rootOrg = root.body[0].organization.id;
});
afterAll(async () => t.close());

const newUser = (suffix: string, extra: Record<string, unknown> = {}) => ({
  username: `new-${suffix}`,
  firstname: 'Ada',
  lastname: 'Lovelace',
  password: 'Strong-Password-1!',
  email: `new-${suffix}@example.org`,
  ...extra,
});

describe('GET /user', () => {
  it('lists every user for root, with pagination headers and the metadata envelope', async () => {
    const org = await t.fx.organization();
    await t.fx.user(org);
    await t.fx.user(org);
    const all = await t.api('GET', '/user', { token: t.rootToken });
    expect(all.status).toBe(200);
    expect(Array.isArray(all.body)).toBe(true);
    expect(Number(all.headers['total-count'])).toBe(all.body.length);
    const ids = all.body.map((u: { id: number }) => u.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));

    const page = await t.api('GET', '/user', {
      token: t.rootToken,
      query: { page: 1, per_page: 2, include: 'metadata' },
    });
    expect(page.body.data).toHaveLength(2);
    expect(page.body.links.next).toContain('page=2');
    expect(page.headers.link).toContain('rel=next');
  });

  it('limits a user with user VIEW ORGANIZATION to their own organization and refuses one without a view rule', async () => {
    const org = await t.fx.organization();
    const viewer = await t.fx.user(org, { rules: ['user.v_org'] });
    const colleague = await t.fx.user(org);
    const r = await t.api('GET', '/user', { token: await viewer.token() });
    expect(r.status).toBe(200);
    expect(r.body.map((u: { id: number }) => u.id).sort()).toEqual([viewer.id, colleague.id].sort());
    const none = await t.fx.user(org);
    const refused = await t.api('GET', '/user', { token: await none.token() });
    expect(refused.status).toBe(401);
  });

  it('filters by username (LIKE), organization, role, direct rule and last_seen', async () => {
    const org = await t.fx.organization();
    const a = await t.fx.user(org, { username: 'filter-alpha', roles: ['Researcher'] });
    const b = await t.fx.user(org, { username: 'filter-beta', rules: ['task.c_org'] });
    const tok = t.rootToken;
    const names = (r: { body: { username: string }[] }) => r.body.map((u) => u.username).sort();
    expect(names(await t.api('GET', '/user', { token: tok, query: { username: 'filter-%' } }))).toEqual([
      'filter-alpha',
      'filter-beta',
    ]);
    expect(names(await t.api('GET', '/user', { token: tok, query: { username: 'filter-alpha' } }))).toEqual([
      'filter-alpha',
    ]);
    expect(names(await t.api('GET', '/user', { token: tok, query: { organization_id: org } }))).toEqual([
      'filter-alpha',
      'filter-beta',
    ]);
    const researcher = await t.fx.roleId('Researcher');
    const byRole = await t.api('GET', '/user', {
      token: tok,
      query: { role_id: researcher, organization_id: org },
    });
    expect(byRole.body.map((u: { id: number }) => u.id)).toEqual([a.id]);
    const byRule = await t.api('GET', '/user', {
      token: tok,
      query: { rule_id: await t.fx.ruleId('task.c_org') },
    });
    expect(byRule.body.map((u: { id: number }) => u.id)).toEqual([b.id]);
    // b calls the API, so b has a last_seen now; a has none.
    await t.api('GET', `/user/${b.id}`, { token: await b.token() });
    const seen = await t.api('GET', '/user', {
      token: tok,
      query: { organization_id: org, last_seen_from: '2000-01-01T00:00:00' },
    });
    expect(seen.body.map((u: { id: number }) => u.id)).toEqual([b.id]);
    const bad = await t.api('GET', '/user', { token: tok, query: { last_seen_from: 'yesterday' } });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toContain('last_seen_from');
  });
});

describe('POST /user', () => {
  it("creates a user in the caller's organization who can then log in", async () => {
    const r = await t.api('POST', '/user', { token: t.rootToken, body: newUser('a') });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      username: 'new-a',
      firstname: 'Ada',
      lastname: 'Lovelace',
      email: 'new-a@example.org',
      type: 'user',
      roles: null,
      rules: null,
    });
    expect(r.body.organization.id).toBe(rootOrg);
    expect(r.body.organization.link).toBe(`/api/organization/${rootOrg}`);
    expect(await t.login('new-a', 'Strong-Password-1!')).toBeTruthy();
  });

  it('accepts the nulls a 3.x client sends for fields it was not given', async () => {
    const r = await t.api('POST', '/user', {
      token: t.rootToken,
      body: newUser('nulls', { organization_id: null, roles: null, rules: null }),
    });
    expect(r.status).toBe(201);
    expect(r.body.organization.id).toBe(rootOrg);
  });

  it('assigns roles and rules, skipping unknown ids', async () => {
    const org = await t.fx.organization();
    const researcher = await t.fx.roleId('Researcher');
    const rule = await t.fx.ruleId('task.v_org');
    const r = await t.api('POST', '/user', {
      token: t.rootToken,
      body: newUser('roles', { organization_id: org, roles: [researcher, 999999], rules: [rule, 999999] }),
    });
    expect(r.status).toBe(201);
    expect(r.body.organization.id).toBe(org);
    expect(r.body.roles.map((x: { id: number }) => x.id)).toEqual([researcher]);
    expect(r.body.rules.map((x: { id: number }) => x.id)).toEqual([rule]);
  });

  it('refuses a taken username or e-mail, a missing field and a weak password with 400', async () => {
    await t.api('POST', '/user', { token: t.rootToken, body: newUser('dup') });
    const name = await t.api('POST', '/user', {
      token: t.rootToken,
      body: newUser('dup', { email: 'other@example.org' }),
    });
    expect(name.status).toBe(400);
    expect(name.body.msg).toContain('new-dup');
    const mail = await t.api('POST', '/user', {
      token: t.rootToken,
      body: newUser('dup2', { email: 'new-dup@example.org' }),
    });
    expect(mail.status).toBe(400);
    expect(mail.body.msg).toContain('new-dup@example.org');
    const { email: _email, ...noEmail } = newUser('noemail');
    const missing = await t.api('POST', '/user', { token: t.rootToken, body: noEmail });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toHaveProperty('email');
    const weak = await t.api('POST', '/user', {
      token: t.rootToken,
      body: newUser('weak', { password: 'short' }),
    });
    expect(weak.status).toBe(400);
    expect(weak.body.msg).toMatch(/too short/i);
    const listed = await t.api('GET', '/user', { token: t.rootToken, query: { username: 'new-weak' } });
    expect(listed.body).toEqual([]);
  });

  it('lets an organization admin create users for their own organization only', async () => {
    const org = await t.fx.organization();
    const other = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const own = await t.api('POST', '/user', {
      token: await admin.token(),
      body: newUser('orgadmin-own', { organization_id: org }),
    });
    expect(own.status).toBe(201);
    expect(own.body.organization.id).toBe(org);
    const foreign = await t.api('POST', '/user', {
      token: await admin.token(),
      body: newUser('orgadmin-foreign', { organization_id: other }),
    });
    expect(foreign.status).toBe(401);
    const viewer = await t.fx.user(org, { roles: ['Viewer'] });
    expect(
      (await t.api('POST', '/user', { token: await viewer.token(), body: newUser('viewer') })).status,
    ).toBe(401);
  });
});

describe('GET /user/{id}', () => {
  it('answers 404 for an unknown user and 401 for a user of another organization without user VIEW GLOBAL', async () => {
    const org = await t.fx.organization();
    const viewer = await t.fx.user(org, { rules: ['user.v_org'] });
    const colleague = await t.fx.user(org);
    const stranger = await t.fx.user(await t.fx.organization());
    expect((await t.api('GET', '/user/999999', { token: t.rootToken })).status).toBe(404);
    expect((await t.api('GET', `/user/${colleague.id}`, { token: await viewer.token() })).status).toBe(200);
    expect((await t.api('GET', `/user/${stranger.id}`, { token: await viewer.token() })).status).toBe(401);
    expect((await t.api('GET', `/user/${stranger.id}`, { token: t.rootToken })).status).toBe(200);
  });
});

describe('PATCH /user/{id}', () => {
  it('updates names and e-mail and ignores null fields', async () => {
    const org = await t.fx.organization();
    const u = await t.fx.user(org, { roles: ['Viewer'] });
    const r = await t.api('PATCH', `/user/${u.id}`, {
      token: t.rootToken,
      body: {
        firstname: 'Grace',
        lastname: '',
        email: `grace-${u.id}@example.org`,
        roles: null,
        rules: null,
        organization_id: null,
      },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      firstname: 'Grace',
      lastname: '',
      email: `grace-${u.id}@example.org`,
      username: u.username,
    });
    expect(r.body.roles).toHaveLength(1);
  });

  it('lets users rename themselves but refuses renaming another user (400), even for root', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const u = await t.fx.user(org, { roles: ['Viewer'] });
    const mine = await t.api('PATCH', `/user/${u.id}`, {
      token: await u.token(),
      body: { username: `renamed-${u.id}` },
    });
    expect(mine.status).toBe(200);
    expect(mine.body.username).toBe(`renamed-${u.id}`);
    const other = await t.api('PATCH', `/user/${u.id}`, {
      token: await admin.token(),
      body: { username: `hijack-${u.id}` },
    });
    expect(other.status).toBe(400);
    expect(other.body.msg).toMatch(/username of another user/);
    const same = await t.api('PATCH', `/user/${u.id}`, {
      token: await admin.token(),
      body: { username: `renamed-${u.id}`, firstname: 'Same' },
    });
    expect(same.status).toBe(200);
    const byRoot = await t.api('PATCH', `/user/${u.id}`, {
      token: t.rootToken,
      body: { username: `root-renamed-${u.id}` },
    });
    expect(byRoot.status).toBe(400);
    expect(byRoot.body.msg).toMatch(/username of another user/);
  });

  it('refuses empty username or e-mail, taken ones, and a password (400)', async () => {
    const org = await t.fx.organization();
    const u = await t.fx.user(org);
    const v = await t.fx.user(org);
    for (const body of [
      { username: '' },
      { email: '' },
      { username: v.username },
      { email: `${v.username}@example.org` },
      { password: 'Other-Password-1!' },
    ]) {
      const r = await t.api('PATCH', `/user/${u.id}`, { token: t.rootToken, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('needs user EDIT ORGANIZATION for colleagues and EDIT GLOBAL for others', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const colleague = await t.fx.user(org);
    const stranger = await t.fx.user(await t.fx.organization());
    const viewer = await t.fx.user(org, { roles: ['Viewer'] });
    expect(
      (
        await t.api('PATCH', `/user/${colleague.id}`, {
          token: await admin.token(),
          body: { firstname: 'X' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await t.api('PATCH', `/user/${stranger.id}`, { token: await admin.token(), body: { firstname: 'X' } }))
        .status,
    ).toBe(401);
    expect(
      (
        await t.api('PATCH', `/user/${colleague.id}`, {
          token: await viewer.token(),
          body: { firstname: 'X' },
        })
      ).status,
    ).toBe(401);
    expect(
      (await t.api('PATCH', '/user/999999', { token: t.rootToken, body: { firstname: 'X' } })).status,
    ).toBe(404);
  });

  it('replaces roles and rules, answering 404 for unknown ids', async () => {
    const org = await t.fx.organization();
    const u = await t.fx.user(org, { roles: ['Viewer'], rules: ['task.v_org'] });
    const researcher = await t.fx.roleId('Researcher');
    const rule = await t.fx.ruleId('port.v_org');
    const r = await t.api('PATCH', `/user/${u.id}`, {
      token: t.rootToken,
      body: { roles: [researcher], rules: [rule] },
    });
    expect(r.status).toBe(200);
    expect(r.body.roles.map((x: { id: number }) => x.id)).toEqual([researcher]);
    expect(r.body.rules.map((x: { id: number }) => x.id)).toEqual([rule]);
    expect(
      (await t.api('PATCH', `/user/${u.id}`, { token: t.rootToken, body: { roles: [999999] } })).status,
    ).toBe(404);
    expect(
      (await t.api('PATCH', `/user/${u.id}`, { token: t.rootToken, body: { rules: [999999] } })).status,
    ).toBe(404);
    const cleared = await t.api('PATCH', `/user/${u.id}`, {
      token: t.rootToken,
      body: { roles: [], rules: [] },
    });
    expect(cleared.body.roles).toBeNull();
    expect(cleared.body.rules).toBeNull();
  });

  it('refuses taking away a role or rule the editor lacks (401)', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const strong = await t.fx.user(org, { roles: ['Collaboration Admin'], rules: ['task.c_glo'] });
    const dropRole = await t.api('PATCH', `/user/${strong.id}`, {
      token: await admin.token(),
      body: { roles: [] },
    });
    expect(dropRole.status).toBe(401);
    expect(dropRole.body.msg).toMatch(/GLOBAL/);
    const dropRule = await t.api('PATCH', `/user/${strong.id}`, {
      token: await admin.token(),
      body: { rules: [] },
    });
    expect(dropRule.status).toBe(401);
    expect(dropRule.body.msg).toContain('task CREATE GLOBAL');
  });

  it('never moves a user to another organization (400), whoever asks', async () => {
    const org = await t.fx.organization();
    const target = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const u = await t.fx.user(org, { roles: ['Viewer'] });
    for (const [token, organization_id] of [
      [await admin.token(), target],
      [t.rootToken, target],
      [t.rootToken, 999999],
    ] as const) {
      const r = await t.api('PATCH', `/user/${u.id}`, { token, body: { organization_id } });
      expect(r.status).toBe(400);
      expect(r.body.msg).toMatch(/cannot be moved to another organization/);
    }
    expect((await t.api('GET', `/user/${u.id}`, { token: t.rootToken })).body.organization.id).toBe(org);
  });
});

describe('DELETE /user/{id}', () => {
  it('deletes yourself with user DELETE OWN, colleagues with DELETE ORGANIZATION, not strangers', async () => {
    const org = await t.fx.organization();
    const self = await t.fx.user(org, { roles: ['Viewer'] });
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const colleague = await t.fx.user(org);
    const stranger = await t.fx.user(await t.fx.organization());
    expect((await t.api('DELETE', `/user/${stranger.id}`, { token: await admin.token() })).status).toBe(401);
    expect((await t.api('DELETE', `/user/${colleague.id}`, { token: await self.token() })).status).toBe(401);
    const r = await t.api('DELETE', `/user/${colleague.id}`, { token: await admin.token() });
    expect(r.status).toBe(200);
    expect(r.body.msg).toBeTruthy();
    expect((await t.api('GET', `/user/${colleague.id}`, { token: t.rootToken })).status).toBe(404);
    expect((await t.api('DELETE', `/user/${self.id}`, { token: await self.token() })).status).toBe(200);
    expect((await t.api('DELETE', `/user/${self.id}`, { token: t.rootToken })).status).toBe(404);
  });

  it('keeps the tasks a deleted user created', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const u = await t.fx.user(org);
    const task = await t.fx.task(collab, [org], { initUserId: u.id });
    expect((await t.api('GET', `/user/${u.id}`, { token: t.rootToken })).body.created_tasks).toEqual([
      task.id,
    ]);
    expect((await t.api('DELETE', `/user/${u.id}`, { token: t.rootToken })).status).toBe(200);
    const row = await t.ctx.dbh.db
      .selectFrom('task')
      .select('init_user_id')
      .where('id', '=', task.id)
      .executeTakeFirst();
    expect(row).toEqual({ init_user_id: null });
  });
});
