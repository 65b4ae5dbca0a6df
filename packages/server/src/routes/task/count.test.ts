import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTaskRows, startTestApp, taskBody, taskWorld, type TestApp } from '@federa/testing';

// The `total-count` of `GET /task` listings filtered by collaboration only comes from the counts the database keeps
// per collaboration (db/migrations/0012-task-count.ts); these tests change the tasks in every way the count must
// follow and compare it with the tasks each caller is shown.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

/** The `total-count` of a first page of 2, and the number of items of the unpaged listing. */
async function counted(token: string, query: Record<string, string | number> = {}) {
  const page = await t.api('GET', '/task', { token, query: { ...query, page: 1, per_page: 2 } });
  expect(page.status).toBe(200);
  const all = await t.api('GET', '/task', { token, query });
  expect(all.status).toBe(200);
  return { total: Number(page.headers['total-count']), items: (all.body as unknown[]).length };
}

describe('GET /task: total-count', () => {
  it('follows tasks created, deleted and left without a collaboration, for each caller and filter', async () => {
    const w = await taskWorld(t);
    // A second collaboration of the researcher's organization, and a third it is not in.
    const other = await t.fx.collaboration([w.orgA]);
    const outsider = await t.fx.organization();
    const foreign = await t.fx.collaboration([outsider]);
    // Through the API where a member can post; the others as the database gets them.
    const posted = await t.api('POST', '/task', {
      token: w.token,
      body: taskBody(w.collab, [w.orgA, w.orgB]),
    });
    expect(posted.status).toBe(201);
    const named = (await t.fx.task(w.collab, [w.orgB], { name: 'named' })).id;
    await t.fx.task(w.collab, [w.orgA]);
    await t.fx.task(other, [w.orgA]);
    await t.fx.task(foreign, [outsider]);
    await t.fx.task(foreign, [outsider]);

    const check = async (expected: { mine: number; collab: number; named: number }) => {
      expect(await counted(w.token)).toEqual({ total: expected.mine, items: expected.mine });
      expect(await counted(w.token, { collaboration_id: w.collab })).toEqual({
        total: expected.collab,
        items: expected.collab,
      });
      // Another filter beside the collaboration: counted from the tasks themselves, and the same.
      expect(await counted(w.token, { collaboration_id: w.collab, name: 'named' })).toEqual({
        total: expected.named,
        items: expected.named,
      });
      // A collaboration the researcher is not in: nothing, although the database counts its tasks.
      expect(await counted(w.token, { collaboration_id: foreign })).toEqual({ total: 0, items: 0 });
      // The server's administrator sees every task, those left without a collaboration too.
      const { tasks } = await countTaskRows(t);
      expect(await counted(t.rootToken)).toEqual({ total: tasks, items: tasks });
    };
    await check({ mine: 4, collab: 3, named: 1 });

    expect((await t.api('DELETE', `/task/${named}`, { token: t.rootToken })).status).toBe(200);
    await check({ mine: 3, collab: 2, named: 0 });

    // Deleting a collaboration keeps its tasks without one: the researcher no longer sees them; root still does.
    expect((await t.api('DELETE', `/collaboration/${other}`, { token: t.rootToken })).status).toBe(200);
    await check({ mine: 2, collab: 2, named: 0 });
    expect(await counted(t.rootToken, { collaboration_id: other })).toEqual({ total: 0, items: 0 });
    const kept = await t.ctx.dbh.db.selectFrom('task_count').selectAll().execute();
    expect(kept.find((row) => row.collaboration_id === other)).toBeUndefined();
    expect(kept.find((row) => row.collaboration_id === w.collab)?.n).toBe(2);
  });
});

// On PostgreSQL, whatever the dialect of this run: there writers of one collaboration run side by side, where SQLite
// writes one transaction at a time (db/migrations/0016-deferred-task-count.ts).
describe('task counts on PostgreSQL, with tasks posted side by side', () => {
  let pg: TestApp;
  beforeAll(async () => {
    pg = await startTestApp({ dialect: 'postgres' });
  });
  afterAll(async () => pg?.close());

  it("does not make a task wait for another transaction's task of the same collaboration to commit", async () => {
    const w = await taskWorld(pg);
    let posted: { status: number } | 'waited' = 'waited';
    let post: Promise<{ status: number }> | undefined;
    await pg.ctx.dbh.db.transaction().execute(async (trx) => {
      // A task of the same collaboration, written and not yet committed (an import, a slow post, a sub-task).
      await trx
        .insertInto('task')
        .values({
          name: 'open',
          description: '',
          image: 'x',
          database: '',
          collaboration_id: w.collab,
          run_id: 1_000_000,
          parent_id: null,
          initiator_id: w.orgA,
          init_user_id: null,
          created_at: '2026-11-25T00:00:00.000',
        })
        .execute();
      post = pg.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA, w.orgB]) });
      // Counted at the row, the post waited for this transaction's count to commit: it would still wait here.
      posted = await Promise.race([
        post,
        new Promise<'waited'>((done) => setTimeout(() => done('waited'), 5_000)),
      ]);
    });
    // Once this transaction committed, a post that waited is answered too.
    const answered = await post;
    expect(posted).not.toBe('waited');
    expect(answered?.status).toBe(201);
    // Both committed: the count has both.
    const kept = await pg.ctx.dbh.db
      .selectFrom('task_count')
      .select('n')
      .where('collaboration_id', '=', w.collab)
      .executeTakeFirst();
    const { n } = await pg.ctx.dbh.db
      .selectFrom('task')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('collaboration_id', '=', w.collab)
      .executeTakeFirstOrThrow();
    expect(Number(kept?.n)).toBe(2);
    expect(Number(n)).toBe(2);
  });
});
