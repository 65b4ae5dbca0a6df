import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';
import { RUN_STATUSES } from '@federa/common';
import { parseRunGroups, tasksWithRunSummary, tasksWithRuns } from './load.js';

// The task embedded in a node's run (`include=task`) sums its runs up by probing the summary index
// (`tasksWithRunSummary`); every other task answer reads them all (`tasksWithRuns`). Both must say the same of a
// task: whether it is complete, which statuses its runs have and when the last one finished, for every mix of
// statuses, open and finished runs, runs without status (legacy rows) and no runs at all.

/** What a task's answer takes from its run groups (serializers/task.ts): complete, statuses, last finish. */
function summaryOf(text: string | null) {
  const groups = parseRunGroups(text);
  return {
    complete: groups.every((g) => g.finished === g.runs),
    statuses: groups.map((g) => g.status ?? '(none)').sort(),
    lastFinishedAt: groups.reduce<string | null>(
      (last, g) =>
        g.lastFinishedAt !== null && (last === null || g.lastFinishedAt > last) ? g.lastFinishedAt : last,
      null,
    ),
  };
}

type Run = { status: string | null; finishedAt: string | null };

describe("a task's runs summed up by probes, against all of them read", () => {
  let t: TestApp;
  const tasks: { id: number; runs: Run[] }[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    const orgs: number[] = [];
    for (let i = 0; i < 6; i++) orgs.push(await t.fx.organization());
    const collab = await t.fx.collaboration(orgs);
    const at = (day: number) => `2026-11-${String(day).padStart(2, '0')} 10:00:00.000000`;
    const cases: Run[][] = [
      [],
      [{ status: 'pending', finishedAt: null }],
      [
        { status: 'completed', finishedAt: at(3) },
        { status: 'completed', finishedAt: at(5) },
      ],
      [
        { status: 'completed', finishedAt: at(3) },
        { status: 'active', finishedAt: null },
        { status: 'pending', finishedAt: null },
      ],
      [
        { status: 'crashed', finishedAt: at(7) },
        { status: 'completed', finishedAt: at(9) },
        { status: 'initializing', finishedAt: null },
      ],
      [
        { status: null, finishedAt: null },
        { status: null, finishedAt: at(4) },
      ],
      [
        { status: null, finishedAt: at(2) },
        { status: 'completed', finishedAt: at(6) },
      ],
      // Every status there is, over two tasks (one run each): finished where the status says so in the first, all
      // finished in the second.
      RUN_STATUSES.slice(0, 6).map((status, k) => ({
        status,
        finishedAt: ['pending', 'initializing', 'active'].includes(status) ? null : at(10 + k),
      })),
      RUN_STATUSES.slice(3).map((status, k) => ({ status, finishedAt: at(20 - k) })),
      // A finished run whose status still says it is open, and an open one that says it finished (neither is
      // written by the server, both can come from an import): each column is read for what it says.
      [
        { status: 'active', finishedAt: at(8) },
        { status: 'completed', finishedAt: null },
      ],
    ];
    for (const runs of cases) {
      const receivers = runs.length ? orgs.slice(0, Math.min(runs.length, orgs.length)) : [];
      const task = await t.fx.task(collab, receivers, { initiatorId: orgs[0]! });
      // More runs than organizations: the fixture makes one per organization; the rest are added as rows.
      const db = t.ctx.dbh.db;
      for (let k = receivers.length; k < runs.length; k++) {
        const row = await db
          .insertInto('result')
          .values({
            task_id: task.id,
            organization_id: orgs[k % orgs.length]!,
            input: '',
            assigned_at: at(1),
            status: null,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        task.resultIds.push(row.id);
      }
      for (const [k, run] of runs.entries())
        await db
          .updateTable('result')
          .set({ status: run.status, finished_at: run.finishedAt })
          .where('id', '=', task.resultIds[k]!)
          .execute();
      tasks.push({ id: task.id, runs });
    }
  });

  afterAll(async () => {
    await t?.close();
  });

  it('says the same of every task', async () => {
    const ids = tasks.map((x) => x.id);
    const db = t.ctx.dbh.db;
    const all = new Map((await tasksWithRuns.byIds(db, ids)).map((r) => [r.id, summaryOf(r.run_groups)]));
    const probed = new Map(
      (await tasksWithRunSummary.byIds(db, ids)).map((r) => [r.id, summaryOf(r.run_groups)]),
    );
    for (const { id, runs } of tasks) {
      const expected = {
        complete: runs.every((r) => r.finishedAt !== null),
        statuses: [...new Set(runs.map((r) => r.status ?? '(none)'))].sort(),
        lastFinishedAt: runs.reduce<string | null>(
          (last, r) =>
            r.finishedAt !== null && (last === null || r.finishedAt > last) ? r.finishedAt : last,
          null,
        ),
      };
      expect(all.get(id), JSON.stringify(runs)).toEqual(expected);
      expect(probed.get(id), JSON.stringify(runs)).toEqual(expected);
    }
  });

  it('lists no run ids in the probed summary', async () => {
    const [row] = await tasksWithRunSummary.byIds(t.ctx.dbh.db, [tasks[3]!.id]);
    expect(parseRunGroups(row!.run_groups).map((g) => g.ids)).toEqual(['', '', '']);
  });
});
