import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

// The read cache keeps answers of authenticated GETs while the SQLite database is unchanged. These tests ask the
// same question twice around every kind of change and expect the second answer to show the change.

describe('read cache (SQLite)', () => {
  let t: TestApp;
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'federa-read-cache-'));
    file = join(dir, 'server.sqlite');
    t = await startTestApp({
      dialect: 'sqlite',
      config: { uri: `sqlite:///${file}`, cors_origins: ['*'] },
    });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const cache = () => {
    const c = t.ctx.readCache;
    if (!c) throw new Error('the read cache is off');
    return c;
  };

  it('answers a repeated GET from memory, with the same body and headers', async () => {
    const org = await t.fx.organization({ name: 'cached-org' });
    await t.fx.collaboration([org]);
    const first = await t.api('GET', '/organization', {
      token: t.rootToken,
      query: { page: 1, per_page: 1 },
    });
    const hits = cache().stats.hits;
    const second = await t.api('GET', '/organization', {
      token: t.rootToken,
      query: { page: 1, per_page: 1 },
    });
    expect(cache().stats.hits).toBe(hits + 1);
    expect(second.status).toBe(200);
    expect(second.raw.body).toBe(first.raw.body);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(second.headers['total-count']).toBe(first.headers['total-count']);
    expect(second.headers.link).toBe(first.headers.link);
    expect(second.headers['access-control-allow-origin']).toBe('*');
  });

  it('shows a change made through the API at the next request', async () => {
    const org = await t.fx.organization({ name: 'before-patch' });
    const get = () => t.api('GET', `/organization/${org}`, { token: t.rootToken });
    expect((await get()).body.name).toBe('before-patch');
    expect((await get()).body.name).toBe('before-patch');
    const patch = await t.api('PATCH', `/organization/${org}`, {
      token: t.rootToken,
      body: { name: 'after-patch' },
    });
    expect(patch.status).toBe(200);
    expect((await get()).body.name).toBe('after-patch');
  });

  it('shows a change committed by another process on the same database file', async () => {
    const org = await t.fx.organization({ name: 'before-other-writer' });
    const get = () => t.api('GET', `/organization/${org}`, { token: t.rootToken });
    expect((await get()).body.name).toBe('before-other-writer');
    expect((await get()).body.name).toBe('before-other-writer');
    const other = new SQLite(file);
    try {
      other.prepare('UPDATE organization SET name = ? WHERE id = ?').run('changed-by-other-writer', org);
    } finally {
      other.close();
    }
    expect((await get()).body.name).toBe('changed-by-other-writer');
  });

  it('applies a rule removed by another process at the next request of a kept caller', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const role = await t.fx.role(['task.v_org'], org);
    const token = await (await t.fx.user(org, { roleIds: [role] })).token();
    // Another page each time: the caller is kept, not the answer.
    const tasks = (page: number) =>
      t.api('GET', '/task', { token, query: { collaboration_id: collab, page } });
    expect((await tasks(1)).status).toBe(200);
    const hits = cache().stats.callerHits;
    expect((await tasks(2)).status).toBe(200);
    expect(cache().stats.callerHits).toBe(hits + 1);
    const ruleId = await t.fx.ruleId('task.v_org');
    const other = new SQLite(file);
    try {
      other.prepare('DELETE FROM role_rule WHERE role_id = ? AND rule_id = ?').run(role, ruleId);
    } finally {
      other.close();
    }
    const refused = await tasks(3);
    expect(refused.status).toBe(401);
    expect(cache().stats.callerHits).toBe(hits + 1);
  });

  it('never gives one caller the answer computed for another', async () => {
    const mine = await t.fx.organization({ name: 'mine' });
    await t.fx.organization({ name: 'not-mine' });
    const user = await t.fx.user(mine, { rules: ['organization.v_org'] });
    const userToken = await user.token();
    const asRoot = await t.api('GET', '/organization', { token: t.rootToken });
    expect(asRoot.body.length).toBeGreaterThan(1);
    for (let i = 0; i < 2; i++) {
      const asUser = await t.api('GET', '/organization', { token: userToken });
      expect(asUser.status).toBe(200);
      expect(asUser.body.map((o: { name: string }) => o.name)).toEqual(['mine']);
    }
    expect((await t.api('GET', '/organization', { token: t.rootToken })).body).toEqual(asRoot.body);
  });

  it('applies a removed rule to the next request although the answer was kept', async () => {
    const org = await t.fx.organization();
    const role = await t.fx.role(['organization.v_org'], org);
    const token = await (await t.fx.user(org, { roleIds: [role] })).token();
    expect((await t.api('GET', `/organization/${org}`, { token })).status).toBe(200);
    expect((await t.api('GET', `/organization/${org}`, { token })).status).toBe(200);
    const ruleId = await t.fx.ruleId('organization.v_org');
    const remove = await t.api('DELETE', `/role/${role}/rule/${ruleId}`, { token: t.rootToken });
    expect(remove.status).toBe(200);
    const refused = await t.api('GET', `/organization/${org}`, { token });
    expect(refused.status).toBe(401);
    expect(refused.body.msg).toContain('You lack the permission');
  });

  it("keeps a researcher's caller across tasks posted and runs reported, and applies a removed rule at once", async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const node = await t.fx.node(org, collab);
    const role = await t.fx.role(['task.v_org', 'task.c_org'], org);
    const token = await (await t.fx.user(org, { roleIds: [role] })).token();
    const nodeToken = await node.token();
    const tasks = async () => {
      const r = await t.api('GET', '/task', { token, query: { collaboration_id: collab } });
      expect(r.status).toBe(200);
      return r.body.map((x: { name: string }) => x.name);
    };
    expect(await tasks()).toEqual([]);
    // Tasks and runs change: the answer is computed again, with the caller loaded before.
    const hits = cache().stats.callerHits;
    const posted = await t.api('POST', '/task', {
      token,
      body: {
        collaboration_id: collab,
        organizations: [{ id: org, input: 'aW5wdXQ=' }],
        name: 'first',
        image: 'example/image',
      },
    });
    expect(posted.status).toBe(201);
    const run = posted.body.results[0].id as number;
    expect(cache().stats.callerHits).toBe(hits + 1);
    const report = await t.api('PATCH', `/result/${run}`, {
      token: nodeToken,
      body: { status: 'active' },
    });
    expect(report.status).toBe(200);
    expect(await tasks()).toEqual(['first']);
    expect(cache().stats.callerHits).toBe(hits + 2);
    // A change of the caller's rules is a change of callers: the next request loads the caller again.
    const ruleId = await t.fx.ruleId('task.v_org');
    expect((await t.api('DELETE', `/role/${role}/rule/${ruleId}`, { token: t.rootToken })).status).toBe(200);
    const refused = await t.api('GET', '/task', { token, query: { collaboration_id: collab } });
    expect(refused.status).toBe(401);
    expect(cache().stats.callerHits).toBe(hits + 2);
  });

  it('refuses an expired token although its answer was kept', async () => {
    const org = await t.fx.organization();
    const token = await (await t.fx.user(org, { rules: ['organization.v_org'] })).token();
    expect((await t.api('GET', `/organization/${org}`, { token })).status).toBe(200);
    expect((await t.api('GET', `/organization/${org}`, { token })).status).toBe(200);
    vi.useFakeTimers({
      toFake: ['Date'],
      now: Date.now() + (t.ctx.tokens.lifetimes.accessSeconds + 60) * 1000,
    });
    const expired = await t.api('GET', `/organization/${org}`, { token });
    expect(expired.status).toBe(401);
    expect(expired.body.msg).toBe('Token has expired');
  });

  it('records last_seen of a caller whose answer was kept', async () => {
    const org = await t.fx.organization();
    const user = await t.fx.user(org, { rules: ['organization.v_org'] });
    const token = await user.token();
    const lastSeen = async () =>
      (await t.ctx.dbh.db.selectFrom('user').select('last_seen').where('id', '=', user.id).executeTakeFirst())
        ?.last_seen;
    expect((await t.api('GET', `/organization/${org}`, { token })).status).toBe(200);
    const first = await lastSeen();
    expect(first).toBeTruthy();
    expect((await t.api('GET', `/organization/${org}`, { token })).status).toBe(200); // kept now
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
    const later = await t.api('GET', `/organization/${org}`, { token });
    expect(later.status).toBe(200);
    expect((await lastSeen()) ?? '').not.toBe(first);
    expect(Date.parse(`${(await lastSeen()) ?? ''}Z`)).toBeGreaterThan(
      Date.parse(`${first ?? ''}Z`) + 50_000,
    );
  });

  it('keeps no refusals: a caller refused once is answered once allowed', async () => {
    const org = await t.fx.organization();
    const user = await t.fx.user(org);
    const token = await user.token();
    expect((await t.api('GET', `/organization/${org}/node`, { token })).status).toBe(401);
    const ruleId = await t.fx.ruleId('node.v_org');
    await t.ctx.dbh.db.insertInto('user_rule').values({ user_id: user.id, rule_id: ruleId }).execute();
    expect((await t.api('GET', `/organization/${org}/node`, { token })).status).toBe(200);
  });
});

describe('read cache settings', () => {
  it('is off when response_cache_mb is 0', async () => {
    const t = await startTestApp({ dialect: 'sqlite', config: { response_cache_mb: 0 } });
    try {
      expect(t.ctx.readCache).toBeNull();
      const org = await t.fx.organization({ name: 'uncached' });
      expect((await t.api('GET', `/organization/${org}`, { token: t.rootToken })).body.name).toBe('uncached');
    } finally {
      await t.close();
    }
  });
});
