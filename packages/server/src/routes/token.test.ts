import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_PASSWORD, startTestApp, type TestApp } from '@federa/testing';
import { decodeJwt } from 'jose';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    config: {
      password_policy: {
        max_failed_attempts: 3,
        inactivation_minutes: 10,
        max_failed_attempts_per_address: 50,
      },
    },
  });
});
afterAll(async () => t.close());

describe('POST /token/user', () => {
  it('logs the root user in with the configured password and returns the 3.x token body', async () => {
    const r = await t.api('POST', '/token/user', { body: { username: 'root', password: ROOT_PASSWORD } });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['access_token', 'refresh_token', 'refresh_url', 'user_url']);
    expect(r.body.refresh_url).toBe('/api/token/refresh');
    expect(r.body.user_url).toMatch(/^\/api\/user\/\d+$/);
    expect(r.headers['jwt-token']).toBe(r.body.access_token);
    const claims = decodeJwt(r.body.access_token);
    expect(claims.type).toBe('access');
    expect(claims.client_type).toBe('user');
    expect(typeof claims.sub).toBe('number');
    expect(claims.identity).toBe(claims.sub);
    expect(claims.roles).toEqual(['Root']);
  });

  it('refuses a wrong password with 401 and a missing field with 400 naming it', async () => {
    const wrong = await t.api('POST', '/token/user', { body: { username: 'root', password: 'nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.msg).toMatch(/invalid username or password/i);
    const missing = await t.api('POST', '/token/user', { body: { password: 'x' } });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toContain('username');
  });

  it('locks an account after too many failures, and answers a locked account exactly as an unknown user', async () => {
    const org = await t.fx.organization();
    const u = await t.fx.user(org);
    for (let i = 0; i < 3; i++) {
      expect(
        (await t.api('POST', '/token/user', { body: { username: u.username, password: 'Wrong-1!' } })).status,
      ).toBe(401);
    }
    const locked = await t.api('POST', '/token/user', {
      body: { username: u.username, password: u.password },
    });
    const unknown = await t.api('POST', '/token/user', {
      body: { username: `nobody-${u.username}`, password: u.password },
    });
    expect(locked.status).toBe(401);
    expect(locked.body).toEqual(unknown.body);
    expect(locked.body.code).toBe('invalid_credentials');
    expect(locked.body.msg).toMatch(/locked for that address for 10 minutes/);
  });

  it('answers malformed JSON with 400', async () => {
    const r = await t.api('POST', '/token/user', { body: '{"username": ' });
    expect(r.status).toBe(400);
    expect(r.body.msg).toMatch(/not valid JSON/);
  });
});

describe('POST /token/refresh and token checks', () => {
  it('exchanges a refresh token for a full token body, and refuses an access token there', async () => {
    const login = await t.api('POST', '/token/user', { body: { username: 'root', password: ROOT_PASSWORD } });
    const r = await t.api('POST', '/token/refresh', { token: login.body.refresh_token });
    expect(r.status).toBe(200);
    expect(r.body.access_token).toBeTruthy();
    expect(r.body.refresh_token).toBeTruthy();
    const bad = await t.api('POST', '/token/refresh', { token: login.body.access_token });
    expect(bad.status).toBe(422);
    expect(bad.body.msg).toBe('Only refresh tokens are allowed');
    const asAccess = await t.api('GET', '/user/1', { token: login.body.refresh_token });
    expect(asAccess.status).toBe(422);
  });

  it('answers 401 without a token and 422 with a badly signed one', async () => {
    expect((await t.api('GET', '/organization')).body.msg).toBe('Missing Authorization Header');
    const forged = `${t.rootToken.slice(0, -4)}AAAA`;
    const r = await t.api('GET', '/organization', { token: forged });
    expect(r.status).toBe(422);
  });
});

describe('POST /token/node', () => {
  it('logs a node in with its API key and refuses an unknown key with 401', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const node = await t.fx.node(org, collab);
    const r = await t.api('POST', '/token/node', { body: { api_key: node.apiKey } });
    expect(r.status).toBe(200);
    expect(r.body.node_url).toBe(`/api/node/${node.id}`);
    expect(decodeJwt(r.body.access_token).sub).toBe(node.id);
    const bad = await t.api('POST', '/token/node', { body: { api_key: 'not-a-key' } });
    expect(bad.status).toBe(401);
  });
});

describe('health and version', () => {
  it('reports the database, repairs the pool, and gives the version', async () => {
    expect((await t.api('GET', '/health')).body.database).toBe(true);
    const fix = await t.api('GET', '/health/fix');
    expect(fix.status).toBe(200);
    expect(fix.body.database).toBe(true);
    expect((await t.api('GET', '/health')).body.database).toBe(true);
    expect((await t.api('GET', '/version')).body.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('answers an unknown path with a JSON 404 and a wrong method with 405', async () => {
    const r = await t.api('GET', '/nothing-here');
    expect(r.status).toBe(404);
    expect(r.body.msg).toContain('/api/nothing-here');
    const m = await t.api('PUT', '/version');
    expect(m.status).toBe(405);
  });
});
