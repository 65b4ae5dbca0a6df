import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { startTestApp, type TestApp } from '@federa/testing';
import { formatStored } from '../http/datetime.js';
import { pruneSessionsNow } from './sessions.js';
import { resetTokenFor } from '../routes/recover.js';

/**
 * Sessions, refresh-token rotation, absolute lifetimes and container-token validity (docs/security.md,
 * "Sessions, tokens and login"). Runs on SQLite and, with FEDERA_TEST_DB=postgres, on PostgreSQL.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    config: {
      session_max_hours: 2,
      node_session_max_hours: 3,
      container_token_max_hours: 5,
      container_token_grace_minutes: 10,
      password_policy: { max_failed_attempts_per_address: 1000 },
    },
  });
});
afterAll(async () => t.close());

interface Tokens {
  access_token: string;
  refresh_token: string;
}

async function userLogin(username: string, password: string): Promise<Tokens> {
  const r = await t.api('POST', '/token/user', { body: { username, password } });
  expect(r.status).toBe(200);
  return r.body as Tokens;
}

async function newUser(): Promise<{ id: number; username: string; password: string }> {
  return t.fx.user(await t.fx.organization());
}

const whoAmI = (token: string, userId: number) => t.api('GET', `/user/${userId}`, { token });
const refresh = (refreshToken: string) => t.api('POST', '/token/refresh', { token: refreshToken });

describe('a password change or reset ends every session opened before it', () => {
  it('PATCH /password/change: both sessions of the user end, their refresh tokens too; a new login works', async () => {
    const u = await newUser();
    const a = await userLogin(u.username, u.password);
    const b = await userLogin(u.username, u.password);
    expect((await whoAmI(b.access_token, u.id)).status).toBe(200);
    const change = await t.api('PATCH', '/password/change', {
      token: a.access_token,
      body: { current_password: u.password, new_password: 'Changed-Pass-9?' },
    });
    expect(change.status).toBe(200);
    for (const s of [a, b]) {
      const r = await whoAmI(s.access_token, u.id);
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('session_ended');
      expect(r.body.msg).toMatch(/^Token has expired: .*password was changed/);
      expect((await refresh(s.refresh_token)).status).toBe(401);
    }
    const fresh = await userLogin(u.username, 'Changed-Pass-9?');
    expect((await whoAmI(fresh.access_token, u.id)).status).toBe(200);
  });

  it('POST /recover/reset: the sessions of the user end', async () => {
    const u = await newUser();
    const s = await userLogin(u.username, u.password);
    const reset = await t.api('POST', '/recover/reset', {
      body: { reset_token: await resetTokenFor(t.ctx, u.id), password: 'Reset-Pass-77!' },
    });
    expect(reset.status).toBe(200);
    expect((await whoAmI(s.access_token, u.id)).body.code).toBe('session_ended');
    expect((await refresh(s.refresh_token)).status).toBe(401);
  });

  it('an ended session is not served from the read cache (a kept answer of the same token and URL)', async () => {
    const u = await newUser();
    const s = await userLogin(u.username, u.password);
    // Twice: the second answer may come from the cache (SQLite).
    expect((await whoAmI(s.access_token, u.id)).status).toBe(200);
    expect((await whoAmI(s.access_token, u.id)).status).toBe(200);
    await t.api('PATCH', '/password/change', {
      token: (await userLogin(u.username, u.password)).access_token,
      body: { current_password: u.password, new_password: 'Cache-Pass-55!' },
    });
    expect((await whoAmI(s.access_token, u.id)).status).toBe(401);
  });
});

describe("a node's API key reset ends the node's sessions", () => {
  it('POST /recover/node: the access and refresh tokens of the node are refused; the new key logs in', async () => {
    const org = await t.fx.organization();
    const node = await t.fx.node(org, await t.fx.collaboration([org]));
    const login = await t.api('POST', '/token/node', { body: { api_key: node.apiKey } });
    const s = login.body as Tokens;
    expect((await t.api('GET', `/node/${node.id}`, { token: s.access_token })).status).toBe(200);
    const reset = await t.api('POST', '/recover/node', { token: t.rootToken, body: { id: node.id } });
    expect(reset.status).toBe(200);
    const after = await t.api('GET', `/node/${node.id}`, { token: s.access_token });
    expect(after.status).toBe(401);
    expect(after.body.msg).toMatch(/API key was reset/);
    expect((await refresh(s.refresh_token)).status).toBe(401);
    const again = await t.api('POST', '/token/node', { body: { api_key: reset.body.api_key } });
    expect(again.status).toBe(200);
  });
});

describe('refresh tokens are single-use (rotation)', () => {
  it('a rotated refresh token used a second time is refused and ends the session', async () => {
    const u = await newUser();
    const login = await userLogin(u.username, u.password);
    const first = await refresh(login.refresh_token);
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).not.toBe(login.refresh_token);
    const second = await refresh(first.body.refresh_token);
    expect(second.status).toBe(200);
    // The first successor again: someone else holds a copy.
    const reused = await refresh(first.body.refresh_token);
    expect(reused.status).toBe(401);
    expect(reused.body.code).toBe('refresh_reused');
    // The whole session has ended: the newest tokens are refused as well.
    expect((await refresh(second.body.refresh_token)).status).toBe(401);
    expect((await whoAmI(second.body.access_token, u.id)).body.code).toBe('session_ended');
    expect((await whoAmI(login.access_token, u.id)).status).toBe(401);
  });

  it('once a successor was used, the login refresh token is refused too', async () => {
    const u = await newUser();
    const login = await userLogin(u.username, u.password);
    const first = await refresh(login.refresh_token);
    expect((await refresh(first.body.refresh_token)).status).toBe(200);
    expect((await refresh(login.refresh_token)).body.code).toBe('refresh_reused');
  });

  it('vantage6 3.3–3.7 clients keep the refresh token of their login: it works again while no successor was used', async () => {
    const u = await newUser();
    const login = await userLogin(u.username, u.password);
    for (let i = 0; i < 3; i++) {
      const r = await refresh(login.refresh_token);
      expect(r.status).toBe(200);
      expect((await whoAmI(r.body.access_token, u.id)).status).toBe(200);
    }
  });

  it('the login refresh token of a legacy client lives as long as the session; successors the refresh lifetime', async () => {
    const u = await newUser();
    const login = await userLogin(u.username, u.password);
    const claims = decodeJwt(login.refresh_token);
    // session_max_hours: 2 here, refresh_token_expires_hours: 48 (default): the login token ends with the session.
    expect(claims.exp! - claims.iat!).toBeGreaterThan(2 * 3600 - 5);
    expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(2 * 3600);
    const long = await startTestApp({ config: { session_max_hours: 24 * 30 } });
    try {
      const v = await long.fx.user(await long.fx.organization());
      const first = (
        await long.api('POST', '/token/user', { body: { username: v.username, password: v.password } })
      ).body as Tokens;
      const atLogin = decodeJwt(first.refresh_token);
      expect(atLogin.exp! - atLogin.iat!).toBeGreaterThan(29 * 24 * 3600);
      const next = await long.api('POST', '/token/refresh', { token: first.refresh_token });
      const successor = decodeJwt(next.body.refresh_token as string);
      expect(successor.exp! - successor.iat!).toBeLessThanOrEqual(48 * 3600);
    } finally {
      await long.close();
    }
  });

  it('with legacy_refresh_reuse: false the login refresh token is single-use as well', async () => {
    const strict = await startTestApp({ config: { legacy_refresh_reuse: false } });
    try {
      const u = await strict.fx.user(await strict.fx.organization());
      const login = (
        await strict.api('POST', '/token/user', { body: { username: u.username, password: u.password } })
      ).body as Tokens;
      const loginClaims = decodeJwt(login.refresh_token);
      expect(loginClaims.exp! - loginClaims.iat!).toBeLessThanOrEqual(48 * 3600);
      const first = await strict.api('POST', '/token/refresh', { token: login.refresh_token });
      expect(first.status).toBe(200);
      const again = await strict.api('POST', '/token/refresh', { token: login.refresh_token });
      expect(again.status).toBe(401);
      expect(again.body.code).toBe('refresh_reused');
      const after = await strict.api('GET', `/user/${u.id}`, { token: first.body.access_token });
      expect(after.body.code).toBe('session_ended');
    } finally {
      await strict.close();
    }
  });
});

describe('a session has an absolute lifetime', () => {
  it('no token of a session outlives session_max_hours, however often it is refreshed', async () => {
    const u = await newUser();
    const login = await userLogin(u.username, u.password);
    const loginIat = decodeJwt(login.access_token).iat!;
    const end = loginIat + 2 * 3600;
    let current = login;
    for (let i = 0; i < 3; i++) {
      const r = await refresh(current.refresh_token);
      expect(r.status).toBe(200);
      current = r.body as Tokens;
      expect(decodeJwt(current.refresh_token).exp).toBeLessThanOrEqual(end + 1);
      expect(decodeJwt(current.access_token).exp).toBeLessThanOrEqual(end + 1);
    }
    // The session's end reached (moved into the past instead of waiting two hours).
    const sid = decodeJwt(current.access_token).sid as string;
    await t.ctx.dbh.db
      .updateTable('session')
      .set({ expires_at: formatStored(new Date(Date.now() - 1000)) })
      .where('id', '=', sid)
      .execute();
    const r = await whoAmI(current.access_token, u.id);
    expect(r.body.code).toBe('session_ended');
    expect(r.body.msg).toMatch(/maximum lifetime/);
    expect((await refresh(current.refresh_token)).status).toBe(401);
  });

  it('node sessions end after node_session_max_hours', async () => {
    const org = await t.fx.organization();
    const node = await t.fx.node(org, await t.fx.collaboration([org]));
    const s = (await t.api('POST', '/token/node', { body: { api_key: node.apiKey } })).body as Tokens;
    const claims = decodeJwt(s.refresh_token);
    expect(claims.exp).toBeLessThanOrEqual(claims.iat! + 3 * 3600);
  });
});

describe('container tokens', () => {
  async function runningTask() {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const node = await t.fx.node(org, collab);
    const task = await t.fx.task(collab, [org]);
    const nodeToken = await node.token();
    const r = await t.api('POST', '/token/container', {
      token: nodeToken,
      body: { task_id: task.id, image: 'example/image:latest' },
    });
    expect(r.status).toBe(200);
    return { org, node, task, token: r.body.container_token as string };
  }
  const asContainer = (token: string, taskId: number) => t.api('GET', `/task/${taskId}`, { token });

  it('carry an exp of at most container_token_max_hours', async () => {
    const { token } = await runningTask();
    const claims = decodeJwt(token);
    expect(typeof claims.exp).toBe('number');
    expect(claims.exp!).toBeLessThanOrEqual(claims.iat! + 5 * 3600);
  });

  it('stop working when their task is deleted', async () => {
    const { task, token } = await runningTask();
    expect((await asContainer(token, task.id)).status).toBe(200);
    expect((await t.api('DELETE', `/task/${task.id}`, { token: t.rootToken })).status).toBe(200);
    const r = await t.api('GET', '/organization', { token });
    expect(r.status).toBe(401);
    expect(r.body.msg).toMatch(/task was deleted/);
    expect((await asContainer(token, task.id)).status).toBe(401);
  });

  it('stop working when their node is deleted', async () => {
    const { node, task, token } = await runningTask();
    expect((await t.api('DELETE', `/node/${node.id}`, { token: t.rootToken })).status).toBe(200);
    const r = await asContainer(token, task.id);
    expect(r.status).toBe(401);
    expect(r.body.msg).toMatch(/node was deleted/);
  });

  it("stop working when their node's API key is reset", async () => {
    const { node, task, token } = await runningTask();
    // The reset is recorded to the second: a token of the same second as the reset counts as issued after it.
    await new Promise((r) => setTimeout(r, 1100));
    expect((await asContainer(token, task.id)).status).toBe(200);
    expect((await t.api('POST', '/recover/node', { token: t.rootToken, body: { id: node.id } })).status).toBe(
      200,
    );
    const r = await asContainer(token, task.id);
    expect(r.status).toBe(401);
    expect(r.body.msg).toMatch(/API key was reset/);
  });

  it('keep working while the run goes and for the grace period after it finished, then stop', async () => {
    const { org, task, token } = await runningTask();
    expect((await asContainer(token, task.id)).status).toBe(200);
    const finish = (msAgo: number) =>
      t.ctx.dbh.db
        .updateTable('result')
        .set({ finished_at: formatStored(new Date(Date.now() - msAgo)), status: 'completed' })
        .where('task_id', '=', task.id)
        .where('organization_id', '=', org)
        .execute();
    await finish(9 * 60_000);
    expect((await asContainer(token, task.id)).status).toBe(200);
    await finish(11 * 60_000);
    const r = await asContainer(token, task.id);
    expect(r.status).toBe(401);
    expect(r.body.msg).toMatch(/run has finished/);
  });
});

describe('old sessions are deleted', () => {
  it('a login deletes sessions that ended or expired more than a week ago, and keeps the others', async () => {
    const pruned = await startTestApp();
    try {
      const u = await pruned.fx.user(await pruned.fx.organization());
      const db = pruned.ctx.dbh.db;
      const longAgo = formatStored(new Date(Date.now() - 8 * 24 * 3_600_000));
      const recent = formatStored(new Date(Date.now() - 3_600_000));
      const row = (id: string, fields: { expires_at: string; ended_at: string | null }) => ({
        id,
        kind: 'user' as const,
        subject_id: u.id,
        created_at: longAgo,
        login_jti: id,
        refresh_jti: id,
        rotated: 0,
        end_reason: fields.ended_at ? 'password_changed' : null,
        ...fields,
      });
      await db
        .insertInto('session')
        .values([
          row('expired-long-ago', { expires_at: longAgo, ended_at: null }),
          row('ended-long-ago', {
            expires_at: formatStored(new Date(Date.now() + 3_600_000)),
            ended_at: longAgo,
          }),
          row('ended-recently', {
            expires_at: formatStored(new Date(Date.now() + 3_600_000)),
            ended_at: recent,
          }),
        ])
        .execute();
      // Logins prune at most once an hour per instance (the harness's root login already did): prune now.
      await pruneSessionsNow(pruned.ctx);
      const left = await db.selectFrom('session').select('id').where('subject_id', '=', u.id).execute();
      expect(left.map((r) => r.id)).toEqual(['ended-recently']);
    } finally {
      await pruned.close();
    }
  });
});
