import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

// A task's status, completeness, finish and run list come from its runs summed up per status in the same query as
// the task's row (repositories/task/load.ts `runGroups`): these check what a user sees for each mix of runs.

let t: TestApp;
let collab: number;
let orgs: number[];
beforeAll(async () => {
  t = await startTestApp();
  orgs = [await t.fx.organization(), await t.fx.organization(), await t.fx.organization()];
  collab = await t.fx.collaboration(orgs);
});
afterAll(async () => t.close());

const setRun = (id: number, values: { status: string | null; finished_at?: string | null }) =>
  t.ctx.dbh.db.updateTable('result').set(values).where('id', '=', id).execute();

const shown = async (taskId: number) => {
  const r = await t.api('GET', `/task/${taskId}`, { token: t.rootToken });
  expect(r.status).toBe(200);
  return r.body as {
    status: string;
    complete: boolean;
    finished_at: string | null;
    results: { id: number }[];
  };
};

describe('a task as its runs make it', () => {
  it('is complete, with the last finish, once every run has finished; its runs listed in id order', async () => {
    const task = await t.fx.task(collab, orgs);
    const [a, b, c] = task.resultIds as [number, number, number];
    await setRun(a, { status: 'completed', finished_at: '2026-11-20T10:00:00.000000' });
    await setRun(b, { status: 'active' });
    let out = await shown(task.id);
    expect(out).toMatchObject({ status: 'active', complete: false, finished_at: null });
    expect(out.results.map((r) => r.id)).toEqual([a, b, c]);

    await setRun(b, { status: 'completed', finished_at: '2026-11-21T09:30:00.000000' });
    await setRun(c, { status: 'crashed', finished_at: '2026-11-20T12:00:00.000000' });
    out = await shown(task.id);
    expect(out).toMatchObject({ status: 'failed', complete: true });
    // The last finish of all the runs, not of the last status group nor of the last run.
    expect(out.finished_at).toMatch(/^2026-11-21T09:30:00/);
    expect(out.results.map((r) => r.id)).toEqual([a, b, c]);
  });

  it('keeps a run without a status (an imported vantage6 run) in its list and its count', async () => {
    const task = await t.fx.task(collab, orgs.slice(0, 2));
    const [a, b] = task.resultIds as [number, number];
    await setRun(a, { status: null });
    await setRun(b, { status: null });
    let out = await shown(task.id);
    expect(out).toMatchObject({ status: 'unknown', complete: false });
    expect(out.results.map((r) => r.id)).toEqual([a, b]);

    await setRun(b, { status: 'completed', finished_at: '2026-11-22T08:00:00.000000' });
    out = await shown(task.id);
    expect(out).toMatchObject({ status: 'completed', complete: false, finished_at: null });
    expect(out.results.map((r) => r.id)).toEqual([a, b]);
  });

  it('is completed and complete without runs, and lists none', async () => {
    const task = await t.fx.task(collab, [], { initiatorId: orgs[0] });
    const out = await shown(task.id);
    expect(out).toMatchObject({ status: 'completed', complete: true, finished_at: null });
    expect(out.results).toBeNull();
  });
});
