import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';
import { RULES } from '../auth/rules.js';

let t: TestApp;
let plainToken: string;
beforeAll(async () => {
  t = await startTestApp();
  // Any user may read the rule catalogue, also one without roles or rules.
  plainToken = await (await t.fx.user(await t.fx.organization())).token();
});
afterAll(async () => t.close());

describe('GET /rule', () => {
  it('lists the whole catalogue with enum names, in id order', async () => {
    const r = await t.api('GET', '/rule', { token: plainToken });
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(RULES.length);
    expect(r.headers['total-count']).toBe(String(RULES.length));
    const first = r.body[0];
    expect(Object.keys(first).sort()).toEqual(['description', 'id', 'name', 'operation', 'scope', 'users']);
    expect(first).toMatchObject({ name: 'node', operation: 'VIEW', scope: 'GLOBAL' });
    const ids = r.body.map((x: { id: number }) => x.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
  });

  it('filters by name, operation, scope and role', async () => {
    const r = await t.api('GET', '/rule', { token: plainToken, query: { name: 'user', operation: 'EDIT' } });
    expect(r.body.map((x: { scope: string }) => x.scope).sort()).toEqual(['GLOBAL', 'ORGANIZATION', 'OWN']);
    const global = await t.api('GET', '/rule', {
      token: plainToken,
      query: { operation: 'VIEW', scope: 'GLOBAL' },
    });
    expect(
      global.body.every(
        (x: { operation: string; scope: string }) => x.operation === 'VIEW' && x.scope === 'GLOBAL',
      ),
    ).toBe(true);
    expect(global.body.length).toBeGreaterThan(5);
    const node = await t.fx.roleId('node');
    const byRole = await t.api('GET', '/rule', { token: plainToken, query: { role_id: node } });
    expect(byRole.body).toHaveLength(9);
    const bad = await t.api('GET', '/rule', { token: plainToken, query: { operation: 'view' } });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toContain('operation');
  });

  it('shows the users holding a rule directly and paginates', async () => {
    const org = await t.fx.organization();
    const u = await t.fx.user(org, { rules: ['port.v_glo'] });
    const id = await t.fx.ruleId('port.v_glo');
    const one = await t.api('GET', `/rule/${id}`, { token: plainToken });
    expect(one.status).toBe(200);
    expect(one.body.users.map((x: { id: number }) => x.id)).toEqual([u.id]);
    expect(one.body.users[0].link).toBe(`/api/user/${u.id}`);
    const page = await t.api('GET', '/rule', {
      token: plainToken,
      query: { page: 2, per_page: 5, include: 'metadata' },
    });
    expect(page.body.data).toHaveLength(5);
    expect(Object.keys(page.body.links)).toEqual(['first', 'previous', 'self', 'next', 'last']);
  });
});

describe('GET /rule/{id}', () => {
  it('answers 404 for an unknown rule and needs a user token', async () => {
    expect((await t.api('GET', '/rule/999999', { token: plainToken })).status).toBe(404);
    expect((await t.api('GET', '/rule/1')).status).toBe(401);
    const collab = await t.fx.collaboration([]);
    const node = await t.fx.node(await t.fx.organization(), collab);
    expect((await t.api('GET', '/rule/1', { token: await node.token() })).status).toBe(401);
  });
});
