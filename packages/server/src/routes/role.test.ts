import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';
import { RULES } from '../auth/rules.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const idsOf = (items: { id: number }[] | null) => (items ?? []).map((x) => x.id);

describe('GET /role', () => {
  it('shows root every role, including the default ones without organization', async () => {
    const org = await t.fx.organization();
    const own = await t.fx.role(['task.v_org'], org);
    const r = await t.api('GET', '/role', { token: t.rootToken });
    expect(r.status).toBe(200);
    const names = r.body.map((x: { name: string }) => x.name);
    for (const n of [
      'container',
      'node',
      'Root',
      'Viewer',
      'Researcher',
      'Organization Admin',
      'Collaboration Admin',
    ])
      expect(names).toContain(n);
    expect(idsOf(r.body)).toContain(own);
    const root = r.body.find((x: { name: string }) => x.name === 'Root');
    expect(root.organization).toBeNull();
    expect(root.rules.length).toBe(RULES.length);
    expect(Object.keys(root).sort()).toEqual(['description', 'id', 'name', 'organization', 'rules', 'users']);
  });

  it('limits role VIEW ORGANIZATION to own, default and held roles, and others to the roles they hold', async () => {
    const org = await t.fx.organization();
    const other = await t.fx.organization();
    const mine = await t.fx.role([], org);
    const foreign = await t.fx.role([], other);
    const heldForeign = await t.fx.role([], other);
    const viewer = await t.fx.user(org, { roles: ['Viewer'] });
    const r = await t.api('GET', '/role', { token: await viewer.token() });
    expect(idsOf(r.body)).toContain(mine);
    expect(idsOf(r.body)).toContain(await t.fx.roleId('Root'));
    expect(idsOf(r.body)).not.toContain(foreign);

    const plain = await t.fx.user(org, { roleIds: [heldForeign] });
    const held = await t.api('GET', '/role', { token: await plain.token() });
    expect(held.status).toBe(200);
    expect(idsOf(held.body)).toEqual([heldForeign]);
  });

  it('filters by organization (with include_root), name and description (repeatable LIKE), rule and user', async () => {
    const org = await t.fx.organization();
    const a = await t.fx.role(['task.v_org'], org, `alpha-${org}`);
    const b = await t.fx.role(['task.c_org'], org, `beta-${org}`);
    const u = await t.fx.user(org, { roleIds: [b] });
    const tok = t.rootToken;
    expect(
      idsOf((await t.api('GET', '/role', { token: tok, query: { organization_id: org } })).body),
    ).toEqual([a, b]);
    const withRoot = await t.api('GET', '/role', {
      token: tok,
      query: { organization_id: org, include_root: 'true' },
    });
    expect(idsOf(withRoot.body)).toContain(await t.fx.roleId('Viewer'));
    expect(idsOf(withRoot.body)).toContain(a);
    const noRoot = await t.api('GET', '/role', {
      token: tok,
      query: { organization_id: org, include_root: 'false' },
    });
    expect(idsOf(noRoot.body)).toEqual([a, b]);
    expect(
      idsOf(
        (await t.api('GET', '/role', { token: tok, query: { name: [`alpha-${org}`, `beta-${org}`] } })).body,
      ),
    ).toEqual([a, b]);
    expect(idsOf((await t.api('GET', '/role', { token: tok, query: { name: `al%-${org}` } })).body)).toEqual([
      a,
    ]);
    const byRule = await t.api('GET', '/role', {
      token: tok,
      query: { organization_id: org, rule_id: await t.fx.ruleId('task.c_org') },
    });
    expect(idsOf(byRule.body)).toEqual([b]);
    expect(idsOf((await t.api('GET', '/role', { token: tok, query: { user_id: u.id } })).body)).toEqual([b]);
    const paged = await t.api('GET', '/role', {
      token: tok,
      query: { organization_id: org, page: 2, per_page: 1, include: 'metadata' },
    });
    expect(idsOf(paged.body.data)).toEqual([b]);
    expect(paged.headers['total-count']).toBe('2');
  });
});

describe('POST /role', () => {
  it('creates a role for the own organization by default', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const rule = await t.fx.ruleId('task.v_org');
    const r = await t.api('POST', '/role', {
      token: await admin.token(),
      body: { name: 'analyst', description: 'reads tasks', rules: [rule], organization_id: null },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'analyst', description: 'reads tasks', users: null });
    expect(r.body.organization.id).toBe(org);
    expect(idsOf(r.body.rules)).toEqual([rule]);
    const empty = await t.api('POST', '/role', {
      token: await admin.token(),
      body: { name: 'empty', description: '' },
    });
    expect(empty.status).toBe(201);
    expect(empty.body.rules).toBeNull();
  });

  it('refuses a default role name (400), an unknown rule (404), a missing description (400)', async () => {
    const reserved = await t.api('POST', '/role', {
      token: t.rootToken,
      body: { name: 'Researcher', description: 'x' },
    });
    expect(reserved.status).toBe(400);
    expect(reserved.body.msg).toMatch(/reserved/);
    expect(
      (
        await t.api('POST', '/role', {
          token: t.rootToken,
          body: { name: 'r', description: 'x', rules: [999999] },
        })
      ).status,
    ).toBe(404);
    const missing = await t.api('POST', '/role', { token: t.rootToken, body: { name: 'r' } });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toContain('description');
  });

  it('answers 404 for an unknown organization and needs role CREATE GLOBAL for another one', async () => {
    const org = await t.fx.organization();
    const other = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    expect(
      (
        await t.api('POST', '/role', {
          token: t.rootToken,
          body: { name: 'r', description: 'x', organization_id: 999999 },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await t.api('POST', '/role', {
          token: await admin.token(),
          body: { name: 'r', description: 'x', organization_id: other },
        })
      ).status,
    ).toBe(401);
    const byRoot = await t.api('POST', '/role', {
      token: t.rootToken,
      body: { name: 'r', description: 'x', organization_id: other },
    });
    expect(byRoot.status).toBe(201);
    expect(byRoot.body.organization.id).toBe(other);
  });
});

describe('GET /role/{id}', () => {
  it("answers 404, shows held roles without view rules, and refuses other organizations' roles", async () => {
    const org = await t.fx.organization();
    const other = await t.fx.organization();
    const held = await t.fx.role([], other);
    const foreign = await t.fx.role([], other);
    const u = await t.fx.user(org, { roleIds: [held] });
    expect((await t.api('GET', '/role/999999', { token: t.rootToken })).status).toBe(404);
    expect((await t.api('GET', `/role/${held}`, { token: await u.token() })).status).toBe(200);
    expect((await t.api('GET', `/role/${foreign}`, { token: await u.token() })).status).toBe(401);
    const viewer = await t.fx.user(org, { roles: ['Viewer'] });
    expect((await t.api('GET', `/role/${foreign}`, { token: await viewer.token() })).status).toBe(401);
    const role = await t.api('GET', `/role/${held}`, { token: t.rootToken });
    expect(idsOf(role.body.users)).toEqual([u.id]);
  });
});

describe('PATCH /role/{id}', () => {
  it('renames a role and replaces its rules', async () => {
    const org = await t.fx.organization();
    const role = await t.fx.role(['task.v_org'], org);
    const rule = await t.fx.ruleId('result.v_org');
    const r = await t.api('PATCH', `/role/${role}`, {
      token: t.rootToken,
      body: { name: 'renamed', description: 'new', rules: [rule] },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: role, name: 'renamed', description: 'new' });
    expect(idsOf(r.body.rules)).toEqual([rule]);
    const nulls = await t.api('PATCH', `/role/${role}`, {
      token: t.rootToken,
      body: { name: null, description: null, rules: null },
    });
    expect(nulls.body).toMatchObject({ name: 'renamed', description: 'new' });
    expect(idsOf(nulls.body.rules)).toEqual([rule]);
  });

  it('refuses renaming to or from a default role name (400) and unknown rules (404)', async () => {
    const org = await t.fx.organization();
    const role = await t.fx.role([], org);
    expect(
      (await t.api('PATCH', `/role/${role}`, { token: t.rootToken, body: { name: 'Viewer' } })).status,
    ).toBe(400);
    const viewer = await t.fx.roleId('Viewer');
    expect(
      (await t.api('PATCH', `/role/${viewer}`, { token: t.rootToken, body: { name: 'Watcher' } })).status,
    ).toBe(400);
    expect(
      (
        await t.api('PATCH', `/role/${viewer}`, {
          token: t.rootToken,
          body: { name: 'Viewer', description: 'same name is fine' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await t.api('PATCH', `/role/${role}`, { token: t.rootToken, body: { rules: [999999] } })).status,
    ).toBe(404);
    expect((await t.api('PATCH', '/role/999999', { token: t.rootToken, body: { name: 'x' } })).status).toBe(
      404,
    );
  });

  it("lets an organization admin edit only their own organization's roles", async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const own = await t.fx.role([], org);
    const foreign = await t.fx.role([], await t.fx.organization());
    expect(
      (await t.api('PATCH', `/role/${own}`, { token: await admin.token(), body: { description: 'ok' } }))
        .status,
    ).toBe(200);
    expect(
      (await t.api('PATCH', `/role/${foreign}`, { token: await admin.token(), body: { description: 'no' } }))
        .status,
    ).toBe(401);
    const researcher = await t.fx.roleId('Researcher');
    expect(
      (
        await t.api('PATCH', `/role/${researcher}`, {
          token: await admin.token(),
          body: { description: 'no' },
        })
      ).status,
    ).toBe(401);
  });
});

describe('DELETE /role/{id}', () => {
  it("deletes a role and its assignments; refuses default roles and other organizations' roles", async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const own = await t.fx.role(['task.v_org'], org);
    const holder = await t.fx.user(org, { roleIds: [own] });
    const foreign = await t.fx.role([], await t.fx.organization());
    expect((await t.api('DELETE', `/role/${foreign}`, { token: await admin.token() })).status).toBe(401);
    const r = await t.api('DELETE', `/role/${own}`, { token: await admin.token() });
    expect(r.status).toBe(200);
    expect(r.body.msg).toBeTruthy();
    expect((await t.api('GET', `/role/${own}`, { token: t.rootToken })).status).toBe(404);
    expect((await t.api('GET', `/user/${holder.id}`, { token: t.rootToken })).body.roles).toBeNull();
    expect(
      (await t.api('DELETE', `/role/${await t.fx.roleId('Viewer')}`, { token: t.rootToken })).status,
    ).toBe(400);
    expect((await t.api('DELETE', '/role/999999', { token: t.rootToken })).status).toBe(404);
  });
});

describe('/role/{id}/rule', () => {
  it('lists the rules of a role, paginated', async () => {
    const org = await t.fx.organization();
    const role = await t.fx.role(['task.v_org', 'task.c_org', 'result.v_org'], org);
    const r = await t.api('GET', `/role/${role}/rule`, { token: t.rootToken });
    expect(r.status).toBe(200);
    expect(r.body.map((x: { name: string; operation: string }) => `${x.name}.${x.operation}`)).toEqual([
      'task.VIEW',
      'task.CREATE',
      'result.VIEW',
    ]);
    expect(r.headers['total-count']).toBe('3');
    const page = await t.api('GET', `/role/${role}/rule`, {
      token: t.rootToken,
      query: { page: 2, per_page: 2 },
    });
    expect(page.body).toHaveLength(1);
    expect((await t.api('GET', '/role/999999/rule', { token: t.rootToken })).status).toBe(404);
    const foreignViewer = await t.fx.user(await t.fx.organization(), { roles: ['Viewer'] });
    expect((await t.api('GET', `/role/${role}/rule`, { token: await foreignViewer.token() })).status).toBe(
      401,
    );
  });

  it("adds a rule (201 with the role's rules) and really removes it again", async () => {
    const org = await t.fx.organization();
    const role = await t.fx.role(['task.v_org'], org);
    const rule = await t.fx.ruleId('result.v_org');
    const added = await t.api('POST', `/role/${role}/rule/${rule}`, { token: t.rootToken });
    expect(added.status).toBe(201);
    expect(added.body.map((x: { id: number }) => x.id)).toContain(rule);
    const removed = await t.api('DELETE', `/role/${role}/rule/${rule}`, { token: t.rootToken });
    expect(removed.status).toBe(200);
    const after = await t.api('GET', `/role/${role}/rule`, { token: t.rootToken });
    expect(idsOf(after.body)).toEqual([await t.fx.ruleId('task.v_org')]);
    expect((await t.api('DELETE', `/role/${role}/rule/${rule}`, { token: t.rootToken })).status).toBe(404);
    expect((await t.api('POST', `/role/${role}/rule/999999`, { token: t.rootToken })).status).toBe(404);
    expect((await t.api('POST', `/role/999999/rule/${rule}`, { token: t.rootToken })).status).toBe(404);
  });

  it('needs the role EDIT/DELETE rule of the right scope and the rule itself', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const own = await t.fx.role([], org);
    const foreign = await t.fx.role([], await t.fx.organization());
    const held = await t.fx.ruleId('task.c_org');
    const lacking = await t.fx.ruleId('task.c_glo');
    expect((await t.api('POST', `/role/${own}/rule/${held}`, { token: await admin.token() })).status).toBe(
      201,
    );
    const refused = await t.api('POST', `/role/${own}/rule/${lacking}`, { token: await admin.token() });
    expect(refused.status).toBe(401);
    expect(refused.body.msg).toContain('task CREATE GLOBAL');
    expect(
      (await t.api('POST', `/role/${foreign}/rule/${held}`, { token: await admin.token() })).status,
    ).toBe(401);
    expect(
      (await t.api('DELETE', `/role/${foreign}/rule/${held}`, { token: await admin.token() })).status,
    ).toBe(401);
    expect((await t.api('DELETE', `/role/${own}/rule/${held}`, { token: await admin.token() })).status).toBe(
      200,
    );
  });
});
