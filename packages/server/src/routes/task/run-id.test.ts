import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, taskBody, taskWorld, type TestApp } from '@federa/testing';

// A task posted by a user starts a run of its own (`run_id`): the algorithm's containers find their peers and
// ports by it and `container_failed` names it, so two tasks sharing one would mix two researchers' runs. Posted
// at the same moment, on PostgreSQL by concurrent transactions, each must still get its own
// (repositories/task/rows.ts `nextRunId`).

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /task: run ids', () => {
  it('gives tasks posted at the same moment a run each', async () => {
    const w = await taskWorld(t);
    const posted = await Promise.all(
      Array.from({ length: 16 }, () =>
        t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA, w.orgB]) }),
      ),
    );
    for (const p of posted) expect(p.status).toBe(201);
    const runs = posted.map((p) => (p.body as { run_id: number }).run_id);
    expect(new Set(runs).size).toBe(16);
    // As the listing shows them too.
    const listed = await t.api('GET', '/task', { token: w.token, query: { collaboration_id: w.collab } });
    const listedRuns = (listed.body as { run_id: number }[]).map((task) => task.run_id);
    expect(new Set(listedRuns).size).toBe(listedRuns.length);
  });
});
