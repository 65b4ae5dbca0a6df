/**
 * Logging out ends the session on the server (docs/security.md#logging-out-ends-the-session): the access token and
 * every refresh token of that session are refused afterwards; the owner's other sessions go on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_PASSWORD, startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const login = async (username: string, password: string) => {
  const r = await t.api('POST', '/token/user', { body: { username, password } });
  expect(r.status).toBe(200);
  return r.body as { access_token: string; refresh_token: string };
};

describe('POST /token/logout', () => {
  it('ends the session: its access and refresh tokens are refused, another session of the user goes on', async () => {
    const org = await t.fx.organization();
    const user = await t.fx.user(org, { roles: ['Researcher'], password: 'Logout-Password-1!' });
    const first = await login(user.username, 'Logout-Password-1!');
    const other = await login(user.username, 'Logout-Password-1!');
    // A refreshed pair is of the same session: it ends too.
    const refreshed = await t.api('POST', '/token/refresh', { token: first.refresh_token });
    expect(refreshed.status).toBe(200);

    const out = await t.api('POST', '/token/logout', { token: first.access_token });
    expect(out.status).toBe(200);
    expect(out.body.msg).toContain('Logged out');

    for (const token of [first.access_token, refreshed.body.access_token as string]) {
      const r = await t.api('GET', `/user/${user.id}`, { token });
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('session_ended');
    }
    const again = await t.api('POST', '/token/refresh', { token: refreshed.body.refresh_token as string });
    expect(again.status).toBe(401);
    expect((await t.api('GET', `/user/${user.id}`, { token: other.access_token })).status).toBe(200);
    // Logging out twice: the session is already over.
    expect((await t.api('POST', '/token/logout', { token: first.access_token })).status).toBe(401);
  });

  it('refuses a refresh token and no token', async () => {
    const pair = await login('root', ROOT_PASSWORD);
    // A refresh token is not an access token (as on every route but /token/refresh).
    expect((await t.api('POST', '/token/logout', { token: pair.refresh_token })).status).toBe(422);
    expect((await t.api('POST', '/token/logout', {})).status).toBe(401);
    expect((await t.api('GET', '/user', { token: pair.access_token })).status).toBe(200);
  });
});
