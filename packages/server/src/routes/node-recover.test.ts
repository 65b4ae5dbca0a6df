/** POST /recover/node: a node's new API key. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /recover/node', () => {
  it('regenerates the API key: the new one works, the old one not, and only a hash is stored', async () => {
    const org = await t.fx.organization();
    const node = await t.fx.node(org, await t.fx.collaboration([org]));
    const admin = await t.fx.user(org, { rules: ['node.e_org'] });
    const r = await t.api('POST', '/recover/node', { token: await admin.token(), body: { id: node.id } });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['api_key']);
    expect(r.body.api_key).not.toBe(node.apiKey);
    const row = await t.ctx.dbh.db
      .selectFrom('node')
      .select('api_key_hash')
      .where('id', '=', node.id)
      .executeTakeFirstOrThrow();
    expect(row.api_key_hash).not.toContain(r.body.api_key);
    expect((await t.api('POST', '/token/node', { body: { api_key: node.apiKey } })).status).toBe(401);
    expect((await t.api('POST', '/token/node', { body: { api_key: r.body.api_key } })).status).toBe(200);
  });

  it('refuses other organizations without node.e_glo (401), unknown nodes (404) and a missing id (400)', async () => {
    const org = await t.fx.organization();
    const other = await t.fx.node(await t.fx.organization(), null);
    const admin = await t.fx.user(org, { rules: ['node.e_org'] });
    const token = await admin.token();
    expect((await t.api('POST', '/recover/node', { token, body: { id: other.id } })).status).toBe(401);
    expect((await t.api('POST', '/recover/node', { token, body: { id: 999999 } })).status).toBe(404);
    const missing = await t.api('POST', '/recover/node', { token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toContain('id');
    expect(
      (await t.api('POST', '/recover/node', { token: t.rootToken, body: { id: other.id } })).status,
    ).toBe(200);
    const viewer = await t.fx.user(org, { roles: ['Viewer'] });
    expect(
      (await t.api('POST', '/recover/node', { token: await viewer.token(), body: { id: other.id } })).status,
    ).toBe(401);
  });
});
