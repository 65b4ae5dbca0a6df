/**
 * The access rules of docs/security.md and the guard checks of docs/access-control.md#guards, each held by a test through the API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

let n = 0;
const newUser = (extra: Record<string, unknown> = {}) => {
  n += 1;
  return {
    username: `guard-${n}`,
    firstname: 'G',
    lastname: 'U',
    password: 'Guard-Password-1!',
    email: `guard-${n}@example.org`,
    ...extra,
  };
};
const idsOf = (items: { id: number }[] | null) => (items ?? []).map((x) => x.id);

describe('a user can always view their own data', () => {
  it('GET /user/{id} of yourself works with zero roles and rules', async () => {
    const u = await t.fx.user(await t.fx.organization());
    const r = await t.api('GET', `/user/${u.id}`, { token: await u.token() });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: u.id, username: u.username, roles: null, rules: null });
  });

  it('never shows the password hash, failed-login data or 2FA secret', async () => {
    const u = await t.fx.user(await t.fx.organization(), { roles: ['Viewer'] });
    const r = await t.api('GET', `/user/${u.id}`, { token: await u.token() });
    expect(Object.keys(r.body).sort()).toEqual([
      'created_tasks',
      'email',
      'firstname',
      'id',
      'ip',
      'last_seen',
      'lastname',
      'organization',
      'roles',
      'rules',
      'status',
      'type',
      'username',
    ]);
    const raw = r.raw.body;
    expect(raw).not.toMatch(/password|failed_login|last_login_attempt|otp_secret|\$2[aby]\$/);
    const list = await t.api('GET', '/user', { token: t.rootToken });
    expect(list.raw.body).not.toMatch(/password|failed_login|\$2[aby]\$/);
  });
});

describe('a user cannot reduce their own permissions', () => {
  it('refuses changing your own roles or rules with 401, even as root', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'], rules: ['task.v_org'] });
    const token = await admin.token();
    const roles = await t.api('PATCH', `/user/${admin.id}`, { token, body: { roles: [] } });
    expect(roles.status).toBe(401);
    expect(roles.body.msg).toMatch(/your own roles/);
    const rules = await t.api('PATCH', `/user/${admin.id}`, { token, body: { rules: [] } });
    expect(rules.status).toBe(401);
    const root = await t.api('GET', '/user', { token: t.rootToken, query: { username: 'root' } });
    const rootId = root.body[0].id;
    expect(
      (await t.api('PATCH', `/user/${rootId}`, { token: t.rootToken, body: { roles: [] } })).status,
    ).toBe(401);
    const still = await t.api('GET', `/user/${admin.id}`, { token });
    expect(still.body.roles).toHaveLength(1);
    expect(still.body.rules).toHaveLength(1);
  });
});

describe('nobody grants rules they lack', () => {
  it('POST /user with a rule, or a role containing a rule, the caller lacks → 401 naming the rule', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const token = await admin.token();
    const rule = await t.api('POST', '/user', {
      token,
      body: newUser({ rules: [await t.fx.ruleId('user.c_glo')] }),
    });
    expect(rule.status).toBe(401);
    expect(rule.body.msg).toContain('user CREATE GLOBAL');
    const role = await t.api('POST', '/user', {
      token,
      body: newUser({ roles: [await t.fx.roleId('Root')] }),
    });
    expect(role.status).toBe(401);
    expect(role.body.msg).toMatch(/GLOBAL/);
    const ok = await t.api('POST', '/user', {
      token,
      body: newUser({ roles: [await t.fx.roleId('Researcher')] }),
    });
    expect(ok.status).toBe(201);
  });

  it('PATCH /user with such a rule or role → 401 naming the rule', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const u = await t.fx.user(org);
    const token = await admin.token();
    const rule = await t.api('PATCH', `/user/${u.id}`, {
      token,
      body: { rules: [await t.fx.ruleId('organization.e_glo')] },
    });
    expect(rule.status).toBe(401);
    expect(rule.body.msg).toContain('organization EDIT GLOBAL');
    const role = await t.api('PATCH', `/user/${u.id}`, {
      token,
      body: { roles: [await t.fx.roleId('Collaboration Admin')] },
    });
    expect(role.status).toBe(401);
    expect((await t.api('GET', `/user/${u.id}`, { token })).body.roles).toBeNull();
  });

  it('POST and PATCH /role with a rule the caller lacks → 401 naming the rule', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const token = await admin.token();
    const lacking = await t.fx.ruleId('collaboration.c_glo');
    const post = await t.api('POST', '/role', {
      token,
      body: { name: 'escalate', description: 'x', rules: [lacking] },
    });
    expect(post.status).toBe(401);
    expect(post.body.msg).toContain('collaboration CREATE GLOBAL');
    const own = await t.fx.role([], org);
    const patch = await t.api('PATCH', `/role/${own}`, { token, body: { rules: [lacking] } });
    expect(patch.status).toBe(401);
    expect(patch.body.msg).toContain('collaboration CREATE GLOBAL');
    expect((await t.api('GET', `/role/${own}`, { token })).body.rules).toBeNull();
  });
});

describe("roles are not usable across organizations, except the default organization's", () => {
  it("refuses another organization's role for a user (401) and accepts a role without organization", async () => {
    const org = await t.fx.organization();
    const other = await t.fx.organization();
    const foreignRole = await t.fx.role([], other);
    const ownRole = await t.fx.role([], org);
    const post = await t.api('POST', '/user', {
      token: t.rootToken,
      body: newUser({ organization_id: org, roles: [foreignRole] }),
    });
    expect(post.status).toBe(401);
    const u = await t.fx.user(org);
    const patch = await t.api('PATCH', `/user/${u.id}`, {
      token: t.rootToken,
      body: { roles: [foreignRole] },
    });
    expect(patch.status).toBe(401);
    const ok = await t.api('PATCH', `/user/${u.id}`, {
      token: t.rootToken,
      body: { roles: [ownRole, await t.fx.roleId('Viewer')] },
    });
    expect(ok.status).toBe(200);
    expect(idsOf(ok.body.roles).sort()).toEqual([ownRole, await t.fx.roleId('Viewer')].sort());
  });
});

describe('an organization admin creates roles for their own organization', () => {
  it('201 for the own organization, 401 for another one', async () => {
    const org = await t.fx.organization();
    const other = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const token = await admin.token();
    const own = await t.api('POST', '/role', {
      token,
      body: {
        name: 'local',
        description: 'x',
        organization_id: org,
        rules: [await t.fx.ruleId('task.v_org')],
      },
    });
    expect(own.status).toBe(201);
    expect(own.body.organization.id).toBe(org);
    const foreign = await t.api('POST', '/role', {
      token,
      body: { name: 'remote', description: 'x', organization_id: other },
    });
    expect(foreign.status).toBe(401);
    const roles = await t.api('GET', '/role', { token: t.rootToken, query: { organization_id: other } });
    expect(roles.body).toEqual([]);
  });
});

describe('users only join existing organizations', () => {
  it('POST /user by root with an unknown organization → 404 and nothing is created', async () => {
    const body = newUser({ organization_id: 999999 });
    const r = await t.api('POST', '/user', { token: t.rootToken, body });
    expect(r.status).toBe(404);
    expect(r.body.msg).toContain('999999');
    const listed = await t.api('GET', '/user', { token: t.rootToken, query: { username: body.username } });
    expect(listed.body).toEqual([]);
  });
});

describe('root manages every user', () => {
  it('root patches and deletes a user of any organization', async () => {
    const u = await t.fx.user(await t.fx.organization(), { roles: ['Researcher'] });
    const patched = await t.api('PATCH', `/user/${u.id}`, {
      token: t.rootToken,
      body: { lastname: 'Patched' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.lastname).toBe('Patched');
    expect((await t.api('DELETE', `/user/${u.id}`, { token: t.rootToken })).status).toBe(200);
  });

  it('a user with zero roles can be patched (names, e-mail); usernames are changed by their owner', async () => {
    const u = await t.fx.user(await t.fx.organization());
    const r = await t.api('PATCH', `/user/${u.id}`, {
      token: t.rootToken,
      body: { firstname: 'Zero', email: `zero-${u.id}@example.org` },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ firstname: 'Zero', email: `zero-${u.id}@example.org`, roles: null });
    const v = await t.fx.user(await t.fx.organization(), { roles: ['Viewer'] });
    const renamed = await t.api('PATCH', `/user/${v.id}`, {
      token: await v.token(),
      body: { username: `renamed-${v.id}` },
    });
    expect(renamed.status).toBe(200);
    expect(await t.login(`renamed-${v.id}`, v.password)).toBeTruthy();
  });

  it('passwords cannot be set through PATCH /user (400)', async () => {
    const u = await t.fx.user(await t.fx.organization(), { roles: ['Viewer'] });
    const byRoot = await t.api('PATCH', `/user/${u.id}`, {
      token: t.rootToken,
      body: { password: 'Another-Password-1!' },
    });
    expect(byRoot.status).toBe(400);
    const bySelf = await t.api('PATCH', `/user/${u.id}`, {
      token: await u.token(),
      body: { password: 'Another-Password-1!' },
    });
    expect(bySelf.status).toBe(400);
    expect(await t.login(u.username, u.password)).toBeTruthy();
  });

  it("a deleted user's token no longer works (401 Error loading the user)", async () => {
    const u = await t.fx.user(await t.fx.organization(), { roles: ['Viewer'] });
    const token = await u.token();
    expect((await t.api('GET', `/user/${u.id}`, { token })).status).toBe(200);
    expect((await t.api('DELETE', `/user/${u.id}`, { token: t.rootToken })).status).toBe(200);
    const r = await t.api('GET', `/user/${u.id}`, { token });
    expect(r.status).toBe(401);
    expect(r.body.msg).toBe(`Error loading the user ${u.id}`);
  });
});

describe('rules are evaluated per request', () => {
  it('a rule added to or removed from a role applies to the next request with the same token', async () => {
    const org = await t.fx.organization();
    const role = await t.fx.role(['organization.v_org'], org);
    const u = await t.fx.user(org, { roleIds: [role] });
    const token = await u.token();
    const ruleId = await t.fx.ruleId('user.v_org');
    expect((await t.api('GET', '/user', { token })).status).toBe(401);
    const add = await t.api('POST', `/role/${role}/rule/${ruleId}`, { token: t.rootToken });
    expect(add.status).toBe(201);
    expect((await t.api('GET', '/user', { token })).status).toBe(200);
    const remove = await t.api('DELETE', `/role/${role}/rule/${ruleId}`, { token: t.rootToken });
    expect(remove.status).toBe(200);
    expect((await t.api('GET', '/user', { token })).status).toBe(401);
  });
});
