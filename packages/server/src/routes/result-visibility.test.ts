import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

// Seed rule 9: a superuser never sees results of a collaboration their organization is not part of. Adding their
// own organization to the collaboration afterwards must not open the results of tasks posted before it joined
// (docs/security.md, "Results only for members at posting time").

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

async function rootOrganization(): Promise<number> {
  const row = await t.ctx.dbh.db
    .selectFrom('user')
    .select('organization_id')
    .where('username', '=', 'root')
    .executeTakeFirstOrThrow();
  return row.organization_id;
}

describe('results of tasks posted before an organization joined', () => {
  it('stay hidden from root after it adds its own organization to a foreign collaboration', async () => {
    const orgA = await t.fx.organization();
    const orgB = await t.fx.organization();
    const collab = await t.fx.collaboration([orgA, orgB]);
    const researcher = await t.fx.user(orgA, { roles: ['Researcher'] });
    const before = await t.fx.task(collab, [orgA, orgB], { name: 'before-root-joined' });
    const token = t.rootToken;

    const join = await t.api('POST', `/collaboration/${collab}/organization`, {
      token,
      body: { id: await rootOrganization() },
    });
    expect(join.status).toBe(200);
    const after = await t.fx.task(collab, [orgA, orgB], { name: 'after-root-joined' });

    // The list of results: only those of the later task.
    const list = await t.api('GET', '/result', { token, query: { per_page: 100, page: 1 } });
    expect(list.status).toBe(200);
    const listed = (list.body as { id: number }[]).map((r) => r.id);
    expect(listed).toEqual(expect.arrayContaining(after.resultIds));
    for (const id of before.resultIds) expect(listed).not.toContain(id);
    expect((await t.api('GET', '/result', { token, query: { task_id: before.id } })).body).toEqual([]);

    // One result, and the task's results.
    const one = await t.api('GET', `/result/${before.resultIds[0]}`, { token });
    expect(one.status).toBe(401);
    expect(one.body.msg).toMatch(/members of its task's collaboration when the task was posted/);
    expect((await t.api('GET', `/result/${after.resultIds[0]}`, { token })).status).toBe(200);
    expect((await t.api('GET', `/task/${before.id}/result`, { token })).status).toBe(401);
    expect((await t.api('GET', `/task/${after.id}/result`, { token })).status).toBe(200);

    // The results embedded in task output.
    const task = await t.api('GET', `/task/${before.id}`, { token, query: { include: 'results' } });
    expect(task.status).toBe(200);
    expect(task.body.results).toEqual([]);
    const later = await t.api('GET', `/task/${after.id}`, { token, query: { include: 'results' } });
    expect(later.body.results.map((r: { id: number }) => r.id).sort()).toEqual([...after.resultIds].sort());
    const tasks = await t.api('GET', '/task', {
      token,
      query: { collaboration_id: collab, include: 'results' },
    });
    const byName = new Map(
      (tasks.body as { name: string; results: unknown[] }[]).map((x) => [x.name, x.results]),
    );
    expect(byName.get('before-root-joined')).toEqual([]);
    expect(byName.get('after-root-joined')).toHaveLength(2);

    // The members at posting time still see everything, also after the member list is rewritten by PATCH.
    const patched = await t.api('PATCH', `/collaboration/${collab}`, {
      token,
      body: { organization_ids: [orgA, orgB, await rootOrganization()] },
    });
    expect(patched.status).toBe(200);
    const own = await researcher.token();
    expect((await t.api('GET', `/result/${before.resultIds[0]}`, { token: own })).status).toBe(200);
    expect((await t.api('GET', `/task/${before.id}/result`, { token: own })).body).toHaveLength(2);
    // And root still does not.
    expect((await t.api('GET', `/result/${before.resultIds[1]}`, { token })).status).toBe(401);
  });

  it('hide earlier results from an organization removed and added again', async () => {
    const orgA = await t.fx.organization();
    const orgB = await t.fx.organization();
    const collab = await t.fx.collaboration([orgA, orgB]);
    const user = await t.fx.user(orgB, { roles: ['Researcher'] });
    const task = await t.fx.task(collab, [orgA]);
    const token = await user.token();
    expect((await t.api('GET', `/result/${task.resultIds[0]}`, { token })).status).toBe(200);
    const root = t.rootToken;
    expect(
      (await t.api('DELETE', `/collaboration/${collab}/organization`, { token: root, body: { id: orgB } }))
        .status,
    ).toBe(200);
    expect(
      (await t.api('POST', `/collaboration/${collab}/organization`, { token: root, body: { id: orgB } }))
        .status,
    ).toBe(200);
    expect((await t.api('GET', `/result/${task.resultIds[0]}`, { token })).status).toBe(401);
  });
});

describe('include=task', () => {
  it('embeds tasks only for a caller who may view tasks; with result VIEW alone it is refused (401)', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const task = await t.fx.task(collab, [org], { name: 'secret task name' });
    const resultsOnly = await (await t.fx.user(org, { rules: ['result.v_org'] })).token();
    const researcher = await (await t.fx.user(org, { roles: ['Researcher'] })).token();
    const resultId = task.resultIds[0]!;

    const plain = await t.api('GET', '/result', { token: resultsOnly, query: { task_id: task.id } });
    expect(plain.status).toBe(200);
    expect(plain.body.map((r: { id: number }) => r.id)).toEqual([resultId]);
    expect(JSON.stringify(plain.body)).not.toContain('secret task name');
    for (const path of ['/result', `/result/${resultId}`]) {
      const refused = await t.api('GET', path, {
        token: resultsOnly,
        query: { task_id: task.id, include: 'task' },
      });
      expect(refused.status).toBe(401);
      expect(refused.body.msg).toContain('include=task');
      expect(JSON.stringify(refused.body)).not.toContain('secret task name');
    }

    const embedded = await t.api('GET', `/result/${resultId}`, {
      token: researcher,
      query: { include: 'task' },
    });
    expect(embedded.status).toBe(200);
    expect(embedded.body.task).toMatchObject({ id: task.id, name: 'secret task name' });
  });
});
