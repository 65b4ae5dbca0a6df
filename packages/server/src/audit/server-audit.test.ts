import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAuditPath } from '@federa/common';
import { startTestApp, taskBody, type TestApp } from '@federa/testing';
import { ServerAudit } from './server-audit.js';

let t: TestApp;
let dir: string;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-server-audit-'));
  const log = pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line)) });
  t = await startTestApp({ auditDir: dir, log });
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
  await rm(`${dir}.key`, { force: true });
});

type Entry = Record<string, unknown> & { seq: number; event: string };
const entries = async (): Promise<Entry[]> =>
  (await readFile(join(dir, 'server.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Entry);

describe("the server's audit log", () => {
  it('records who did what through the API, and never a secret', async () => {
    const org = await t.fx.organization();
    const other = await t.fx.organization();
    const collab = await t.fx.collaboration([org, other]);
    const node = await t.fx.node(org, collab);
    const admin = await t.fx.user(org, { roles: ['Organization Admin', 'Researcher'] });

    expect(
      (await t.api('POST', '/token/user', { body: { username: admin.username, password: 'Wrong-1!x' } }))
        .status,
    ).toBe(401);
    const token = await t.login(admin.username, admin.password);
    const made = await t.api('POST', '/user', {
      token,
      body: {
        username: 'audited-new',
        email: 'audited-new@example.org',
        firstname: 'A',
        lastname: 'B',
        password: 'Secret-Password-9!',
        organization_id: org,
      },
    });
    expect(made.status).toBe(201);
    const task = await t.api('POST', '/task', { token, body: taskBody(collab, [org]) });
    expect(task.status).toBe(201);
    const resultId = task.body.results[0].id as number;
    expect((await t.api('GET', `/result/${resultId}`, { token })).status).toBe(200);
    expect((await t.api('POST', '/kill/task', { token, body: { id: task.body.id } })).status).toBe(200);
    expect((await t.api('POST', '/token/node', { body: { api_key: node.apiKey } })).status).toBe(200);
    expect((await t.api('GET', '/organization', { token })).status).toBe(200);

    const all = await entries();
    expect(all[0]).toMatchObject({ seq: 1, event: 'server.started' });
    const actor = { kind: 'user', id: admin.id };
    expect(all.find((e) => e.event === 'user.login_failed')).toMatchObject({
      route: 'POST /token/user',
      username: admin.username,
      status: 401,
      actor: null,
      error: 'invalid_credentials',
    });
    expect(all.find((e) => e.event === 'user.login' && e.username === admin.username)).toMatchObject({
      actor,
      status: 200,
      username: admin.username,
    });
    expect(all.find((e) => e.route === 'POST /user')).toMatchObject({
      event: 'http.request',
      actor: { ...actor, organization_id: org },
      status: 201,
      created_id: made.body.id,
    });
    expect(all.find((e) => e.event === 'task.created')).toMatchObject({
      actor: { ...actor, organization_id: org },
      created_id: task.body.id,
      image: 'harbor.example.org/algorithms/average:1.0',
      collaboration_id: collab,
      organization_ids: [org],
    });
    expect(all.find((e) => e.event === 'result.read')).toMatchObject({
      params: { id: resultId },
      status: 200,
    });
    expect(all.find((e) => e.event === 'task.killed')).toMatchObject({ task_id: task.body.id, status: 200 });
    expect(all.find((e) => e.event === 'node.login')).toMatchObject({ actor: { kind: 'node', id: node.id } });
    // Reads of other resources are not recorded.
    expect(all.some((e) => e.route === 'GET /organization')).toBe(false);

    const text = await readFile(join(dir, 'server.jsonl'), 'utf8');
    for (const secret of [
      'Secret-Password-9!',
      'Wrong-1!x',
      admin.password,
      node.apiKey,
      `input-for-${org}`,
      token,
    ])
      expect(text).not.toContain(secret);
    expect((await verifyAuditPath(dir))[0]?.problem).toBeUndefined();
  });

  it('refuses what it cannot record, logs a change it could not record, and records the loss once it can write again', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const token = await admin.token();
    const file = join(dir, 'server.jsonl');
    const kept = await readFile(file, 'utf8');
    await rm(file);
    await symlink('/dev/full', file);
    const body = (name: string) => ({
      username: name,
      email: `${name}@example.org`,
      firstname: 'A',
      lastname: 'B',
      password: 'Secret-Password-9!',
      organization_id: org,
    });

    // The change is made before its entry fails to be written: it is answered, and its entry is in the server log.
    const made = await t.api('POST', '/user', { token, body: body('made-unaudited') });
    expect(made.status).toBe(201);
    const line = logLines.find((l) => l.event === 'audit.write_failed');
    expect(line).toMatchObject({
      level: 50,
      audit_event: 'http.request',
      audit_fields: { route: 'POST /user', created_id: made.body.id },
    });
    // From then on nothing audited is done: reads, logins and changes are refused before they run.
    const read = await t.api('GET', '/result', { token });
    expect(read).toMatchObject({ status: 503, body: { code: 'audit_unavailable' } });
    expect(
      (await t.api('POST', '/token/user', { body: { username: admin.username, password: admin.password } }))
        .status,
    ).toBe(503);
    expect((await t.api('POST', '/user', { token, body: body('never-made') })).status).toBe(503);
    const never = await t.ctx.dbh.db
      .selectFrom('user')
      .select('id')
      .where('username', '=', 'never-made')
      .executeTakeFirst();
    expect(never).toBeUndefined();
    // What is not audited goes on.
    expect((await t.api('GET', '/organization', { token })).status).toBe(200);

    await rm(file);
    await writeFile(file, kept);
    expect((await t.api('GET', '/result', { token })).status).toBe(200);
    const after = (await entries()).slice(-2);
    expect(after[0]).toMatchObject({ event: 'audit.resumed', lost_entries: 1 });
    expect(after[1]).toMatchObject({ event: 'result.read', status: 200 });
    expect((await verifyAuditPath(dir))[0]?.problem).toBeUndefined();
  });

  it('gives a second instance on the same folder a chain of its own, and verify checks both', async () => {
    const other = await ServerAudit.open({
      dir,
      maxFileBytes: 1024 * 1024,
      sync: true,
      log: pino({ level: 'silent' }),
    });
    expect(other.chain).toBe('server-2');
    await other.record('http.request', { route: 'POST /user', status: 201 });
    expect((await t.api('POST', '/token/user', { body: { username: 'nobody', password: 'x' } })).status).toBe(
      401,
    );
    await other.close();
    const reports = await verifyAuditPath(dir);
    expect(reports.map((r) => [r.chain, r.problem])).toEqual([
      ['server', undefined],
      ['server-2', undefined],
    ]);
    expect((await entries()).at(-1)).toMatchObject({ event: 'user.login_failed', username: 'nobody' });
  });

  it('logs its head (audit.head) when it closes, which verify --head then finds', async () => {
    const lines: Record<string, unknown>[] = [];
    const own = await mkdtemp(join(tmpdir(), 'federa-server-audit-head-'));
    const audit = await ServerAudit.open({
      dir: own,
      maxFileBytes: 1024 * 1024,
      sync: false,
      log: pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l)) }),
    });
    await audit.record('http.request', { route: 'POST /user', status: 201 });
    await audit.close();
    const last = (await readFile(join(own, 'server.jsonl'), 'utf8')).trim().split('\n').at(-1) ?? '';
    const { seq, hash } = JSON.parse(last) as { seq: number; hash: string };
    expect(lines.filter((l) => l.event === 'audit.head')).toEqual([
      expect.objectContaining({ chain: 'server', seq, hash, msg: expect.stringContaining(`--head ${hash}`) }),
    ]);
    expect((await verifyAuditPath(own, { head: hash }))[0]).toMatchObject({ headSeq: 3 });
    await rm(own, { recursive: true, force: true });
    await rm(`${own}.key`, { force: true });
  });
});
