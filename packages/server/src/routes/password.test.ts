import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('PATCH /password/change', () => {
  it('changes the password: the new one logs in, the old one no longer does', async () => {
    const u = await t.fx.user(await t.fx.organization());
    const token = await u.token();
    const r = await t.api('PATCH', '/password/change', {
      token,
      body: { current_password: u.password, new_password: 'Brand-New-Pass-2?' },
    });
    expect(r.status).toBe(200);
    expect(r.body.msg).toBeTruthy();
    expect(await t.login(u.username, 'Brand-New-Pass-2?')).toBeTruthy();
    expect(
      (await t.api('POST', '/token/user', { body: { username: u.username, password: u.password } })).status,
    ).toBe(401);
  });

  it('refuses a wrong current password (401), the same password (400), a weak one (400) and missing fields (400)', async () => {
    const u = await t.fx.user(await t.fx.organization());
    const token = await u.token();
    const wrong = await t.api('PATCH', '/password/change', {
      token,
      body: { current_password: 'Not-It-123!', new_password: 'Brand-New-Pass-2?' },
    });
    expect(wrong.status).toBe(401);
    const same = await t.api('PATCH', '/password/change', {
      token,
      body: { current_password: u.password, new_password: u.password },
    });
    expect(same.status).toBe(400);
    const weak = await t.api('PATCH', '/password/change', {
      token,
      body: { current_password: u.password, new_password: 'nodigits' },
    });
    expect(weak.status).toBe(400);
    expect(weak.body.code).toBe('password_policy');
    const missing = await t.api('PATCH', '/password/change', {
      token,
      body: { current_password: u.password },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toContain('new_password');
    expect(await t.login(u.username, u.password)).toBeTruthy();
  });

  it('is for users only', async () => {
    const org = await t.fx.organization();
    const node = await t.fx.node(org, await t.fx.collaboration([org]));
    const r = await t.api('PATCH', '/password/change', {
      token: await node.token(),
      body: { current_password: 'a', new_password: 'b' },
    });
    expect(r.status).toBe(401);
    expect(
      (await t.api('PATCH', '/password/change', { body: { current_password: 'a', new_password: 'b' } }))
        .status,
    ).toBe(401);
  });
});
