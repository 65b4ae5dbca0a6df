/**
 * The store's rules (`GET /store/api/rule`), as vantage6 4.x's client lists them (`client.store.rule.list`): what
 * each fixed role lets one do, filtered by resource, operation, role and user, page by page, to users only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, storeApi, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

interface Rule {
  id: number;
  name: string;
  operation: string;
  description: string;
}
const keys = (body: { data: Rule[] }): string[] => body.data.map((r) => `${r.name} ${r.operation}`);

describe("the store's rules", () => {
  it('lists every rule to a user, page by page, and filters by resource and operation', async () => {
    const token = await (await t.fx.user(await t.fx.organization())).token();
    const all = await storeApi(t, 'GET', '/rule', { token, query: { per_page: 100 } });
    expect(all.status).toBe(200);
    expect(Object.keys(all.body.data[0]).sort()).toEqual(['description', 'id', 'name', 'operation']);
    const total = all.body.data.length;
    expect(all.headers['total-count']).toBe(String(total));
    expect(keys(all.body)).toContain('algorithm view');
    expect(keys(all.body)).toContain('review edit');

    const first = await storeApi(t, 'GET', '/rule', { token });
    expect(first.body.data).toEqual(all.body.data.slice(0, 10));
    expect(first.body.links.next).toBe('/store/api/rule?page=2');
    const second = await storeApi(t, 'GET', '/rule', { token, query: { page: 2 } });
    expect(second.body.data).toEqual(all.body.data.slice(10, 20));
    expect(
      (await storeApi(t, 'GET', '/rule', { token, query: { no_pagination: 1 } })).body.data,
    ).toHaveLength(total);

    const algorithm = await storeApi(t, 'GET', '/rule', { token, query: { name: 'algorithm' } });
    expect(keys(algorithm.body)).toEqual([
      'algorithm view',
      'algorithm create',
      'algorithm edit',
      'algorithm delete',
    ]);
    const views = await storeApi(t, 'GET', '/rule', { token, query: { operation: 'view', per_page: 100 } });
    expect(views.body.data.every((r: Rule) => r.operation === 'view')).toBe(true);

    expect((await storeApi(t, 'GET', '/rule')).status).toBe(401);
  });

  it("lists a role's rules and a user's, and refuses a role or user the store does not know", async () => {
    const org = await t.fx.organization();
    const token = await (await t.fx.user(org)).token();
    const roles = (await storeApi(t, 'GET', '/role')).body.data as { id: number; name: string }[];
    const roleId = (name: string) => roles.find((r) => r.name === name)!.id;
    const ofRole = async (name: string) =>
      keys(
        (await storeApi(t, 'GET', '/rule', { token, query: { role_id: roleId(name), per_page: 100 } })).body,
      );
    expect(await ofRole('viewer')).toEqual(['algorithm view', 'role view']);
    expect(await ofRole('reviewer')).toEqual(['review view', 'review edit']);
    const all = (await storeApi(t, 'GET', '/rule', { token, query: { per_page: 100 } })).body;
    expect(await ofRole('store manager')).toEqual(keys(all));
    const badRole = await storeApi(t, 'GET', '/rule', { token, query: { role_id: 99 } });
    expect(badRole.status).toBe(400);
    expect(badRole.body.msg).toBe('Store role 99 does not exist.');

    // A developer's rules, named by username and the server they log in to, as the 4.x client names it (its
    // `server_url` header names the same server).
    const developer = await t.fx.user(org);
    const made = await storeApi(t, 'POST', '/user', {
      token: t.rootToken,
      body: { username: developer.username, roles: ['developer'] },
    });
    expect(made.status).toBe(201);
    const serverUrl = 'http://federa.example.org/api';
    const ofUser = await storeApi(t, 'GET', '/rule', {
      token,
      headers: { server_url: serverUrl },
      query: { username: developer.username, server_url: serverUrl, per_page: 100 },
    });
    expect(ofUser.status, JSON.stringify(ofUser.body)).toBe(200);
    expect(keys(ofUser.body)).toEqual([
      'algorithm view',
      'algorithm create',
      'algorithm edit',
      'algorithm delete',
      'role view',
    ]);
    const half = await storeApi(t, 'GET', '/rule', { token, query: { username: developer.username } });
    expect(half.status).toBe(400);
    expect(half.body.msg).toBe('Both username and server_url are needed to list the rules of a user.');
    const stranger = await storeApi(t, 'GET', '/rule', {
      token,
      query: { username: 'nobody', server_url: 'https://elsewhere.example.org/api' },
    });
    expect(stranger.status).toBe(400);
    expect(stranger.body.msg).toBe(
      "The store knows no user 'nobody' of the server 'https://elsewhere.example.org/api'.",
    );
  });
});
