import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, statementsDuring, type TestApp } from '@federa/testing';
import { loadCollaborations } from './collaboration.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

/** `GET /collaboration/{id}` as root, with the statements it sent. */
const get = async (id: number) => {
  const { result, statements } = await statementsDuring(t, () =>
    t.api('GET', `/collaboration/${id}`, { token: t.rootToken }),
  );
  expect(result.status).toBe(200);
  // Of each statement listing the collaboration's tasks, the id above which it lists them (0: all).
  const tasksAbove = statements
    .filter((s) => /string_agg\(cast\("task"\."id"/.test(s.sql))
    .map((s) => Number(s.parameters[0]));
  return { body: result.body as Record<string, unknown>, tasksAbove };
};

/** The answer read afresh, every list in full, as the listing builds it. */
const fresh = async (id: number) => JSON.parse(JSON.stringify((await loadCollaborations(t.ctx, [id]))[0]));

describe('GET /collaboration/{id}: the kept answer', () => {
  it('reads the same as an answer read afresh through every change, and reads no task twice', async () => {
    const [a, b, c] = [await t.fx.organization(), await t.fx.organization(), await t.fx.organization()];
    const collaboration = await t.fx.collaboration([a, b], { name: 'Kept Study' });
    const other = await t.fx.collaboration([a, b], { name: 'Other Study' });
    const expectFresh = async () => {
      const got = await get(collaboration);
      expect(got.body).toEqual(await fresh(collaboration));
      return got;
    };

    // No task yet, then the same again: the second answer is the kept one, read without its tasks.
    expect((await expectFresh()).tasksAbove).toEqual([0]);
    expect((await expectFresh()).tasksAbove).toEqual([]);

    // Tasks created (here by another writer than the API: the database's triggers move the version).
    const first = await t.fx.task(collaboration, [a, b]);
    const second = await t.fx.task(collaboration, [a]);
    expect(((await expectFresh()).body.tasks as { id: number }[]).map((x) => x.id)).toEqual([
      first.id,
      second.id,
    ]);
    expect((await expectFresh()).tasksAbove).toEqual([]);

    // More tasks: only those above the last one listed are read.
    const third = await t.fx.task(collaboration, [b]);
    const added = await expectFresh();
    expect(added.tasksAbove).toEqual([second.id]);
    expect((added.body.tasks as { id: number }[]).map((x) => x.id)).toEqual([first.id, second.id, third.id]);

    // A task of another collaboration changes nothing here; still the kept answer.
    await t.fx.task(other, [a]);
    expect((await expectFresh()).tasksAbove).toEqual([]);

    // A task deleted, and one created after it: the version moved by two, the count not at all: all read again.
    expect((await t.api('DELETE', `/task/${second.id}`, { token: t.rootToken })).status).toBe(200);
    const fourth = await t.fx.task(collaboration, [a]);
    const moved = await expectFresh();
    expect(moved.tasksAbove).toEqual([third.id, 0]);
    expect((moved.body.tasks as { id: number }[]).map((x) => x.id)).toEqual([first.id, third.id, fourth.id]);

    // Renamed, a member added, a node registered: each one shows at once.
    expect(
      (
        await t.api('PATCH', `/collaboration/${collaboration}`, {
          token: t.rootToken,
          body: { name: 'Kept Study, renamed', organization_ids: [a, b, c] },
        })
      ).status,
    ).toBe(200);
    const renamed = await expectFresh();
    expect(renamed.body.name).toBe('Kept Study, renamed');
    expect((renamed.body.organizations as { id: number }[]).map((x) => x.id)).toEqual([a, b, c]);
    const node = await t.fx.node(c, collaboration);
    expect(((await expectFresh()).body.nodes as { id: number }[]).map((x) => x.id)).toEqual([node.id]);

    // The last task removed: the list is null again, as vantage6 answers.
    for (const id of [first.id, third.id, fourth.id])
      expect((await t.api('DELETE', `/task/${id}`, { token: t.rootToken })).status).toBe(200);
    expect((await expectFresh()).body.tasks).toBeNull();
    const last = await t.fx.task(collaboration, [c]);
    expect(((await expectFresh()).body.tasks as { id: number }[]).map((x) => x.id)).toEqual([last.id]);
  });

  it('is the same answer with nothing kept (response_cache_mb: 0)', async () => {
    const off = await startTestApp({ config: { response_cache_mb: 0 } });
    try {
      const org = await off.fx.organization();
      const collaboration = await off.fx.collaboration([org]);
      const task = await off.fx.task(collaboration, [org]);
      for (let i = 0; i < 2; i++) {
        const { result, statements } = await statementsDuring(off, () =>
          off.api('GET', `/collaboration/${collaboration}`, { token: off.rootToken }),
        );
        expect((result.body.tasks as { id: number }[]).map((x) => x.id)).toEqual([task.id]);
        expect(statements.some((s) => /string_agg\(cast\("task"\."id"/.test(s.sql))).toBe(true);
      }
    } finally {
      await off.close();
    }
  });

  it('answers 404 for a collaboration that is not there, and for one deleted after its answer was kept', async () => {
    const org = await t.fx.organization();
    const collaboration = await t.fx.collaboration([org]);
    await t.fx.task(collaboration, [org]);
    await get(collaboration);
    expect(
      (
        await t.api('DELETE', `/collaboration/${collaboration}?delete_dependents=true`, {
          token: t.rootToken,
        })
      ).status,
    ).toBe(200);
    expect((await t.api('GET', `/collaboration/${collaboration}`, { token: t.rootToken })).status).toBe(404);
    expect((await t.api('GET', '/collaboration/999999', { token: t.rootToken })).status).toBe(404);
  });
});
