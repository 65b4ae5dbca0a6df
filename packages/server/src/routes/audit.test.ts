/**
 * The audit log over the API for the root user (docs/audit.md, "Reading it in the web UI"): searched by what, who
 * and when, newest first, its verification without the server's paths, refused to everyone else, and said to be
 * absent on a server that keeps none.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-audit-api-'));
  t = await startTestApp({ auditDir: join(dir, 'audit') });
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

interface Page {
  total: number;
  entries: { event: string; at: string; actor?: { kind: string; id: number } | null; created_id?: number }[];
}

describe('GET /audit', () => {
  it('finds entries by event, actor and time, the newest first, at most limit of them', async () => {
    const before = new Date().toISOString();
    const org = await t.api('POST', '/organization', { token: t.rootToken, body: { name: 'Audited Org' } });
    expect(org.status).toBe(201);
    await t.api('POST', '/token/user', { body: { username: 'nobody', password: 'wrong-Password-1' } });
    const orgs = await t.api('GET', `/audit?event=http.request&actor_kind=user&actor_id=1&from=${before}`, {
      token: t.rootToken,
    });
    expect(orgs.status).toBe(200);
    const page = orgs.body as Page;
    const created = page.entries.find((e) => e.created_id === org.body.id);
    expect(created).toMatchObject({ event: 'http.request', actor: { kind: 'user', id: 1 } });
    const failed = (await t.api('GET', '/audit?event=user.login_failed', { token: t.rootToken }))
      .body as Page;
    expect(failed.total).toBe(1);
    const all = (await t.api('GET', '/audit?limit=2', { token: t.rootToken })).body as Page;
    expect(all.entries).toHaveLength(2);
    expect(all.total).toBeGreaterThan(2);
    expect(all.entries[0]!.at >= all.entries[1]!.at).toBe(true);
    const none = (await t.api('GET', '/audit?till=2000-01-01', { token: t.rootToken })).body as Page;
    expect(none).toMatchObject({ total: 0, entries: [] });
  });

  it('refuses a bad time naming it, and every user without every rule', async () => {
    const bad = await t.api('GET', '/audit?from=yesterday', { token: t.rootToken });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toBe("'from' must be an ISO 8601 date or date-time, e.g. 2026-01-31T12:00:00Z.");
    const org = await t.fx.organization();
    const user = await t.fx.user(org, { rules: ['organization.v_glo', 'user.v_glo', 'event.v_glo'] });
    const token = await t.login(user.username, user.password);
    for (const path of ['/audit', '/audit/verify']) {
      const r = await t.api('GET', path, { token });
      expect(r.status).toBe(401);
      expect(r.body.msg).toBe('Only the root user (every rule) may read the audit log.');
    }
  });
});

describe('GET /audit/verify', () => {
  it('says the chain is intact, then names the edited entry, without the server paths', async () => {
    const ok = await t.api('GET', '/audit/verify', { token: t.rootToken });
    expect(ok.status).toBe(200);
    expect(ok.body.ok).toBe(true);
    expect(ok.body.text).toMatch(/^OK: chain 'server': \d+ entries intact/);
    expect(ok.body.text).not.toContain(dir);
    const file = join(dir, 'audit', 'server.jsonl');
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines[0] = lines[0]!.replace('"server.started"', '"server.restarted"');
    await writeFile(file, lines.join('\n'));
    const tampered = await t.api('GET', '/audit/verify', { token: t.rootToken });
    expect(tampered.body.ok).toBe(false);
    expect(tampered.body.text).toContain('server.jsonl');
    expect(tampered.body.text).not.toContain(dir);
  });
});

describe('a server without an audit log', () => {
  it('says it keeps none', async () => {
    const bare = await startTestApp();
    try {
      const r = await bare.api('GET', '/audit', { token: bare.rootToken });
      expect(r.status).toBe(501);
      expect(r.body.msg).toBe('This server keeps no audit log.');
    } finally {
      await bare.close();
    }
  });
});
