import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

/** One open run addressed to a node of organization A; `patch` reports as that node, `view` reads as a user. */
async function run() {
  const org = await t.fx.organization();
  const collab = await t.fx.collaboration([org]);
  const node = await t.fx.node(org, collab);
  const user = await t.fx.user(org, { roles: ['Researcher'] });
  const task = await t.fx.task(collab, [org]);
  const id = task.resultIds[0] as number;
  const nodeToken = await node.token();
  const userToken = await user.token();
  return {
    id,
    taskId: task.id,
    patch: (body: Record<string, unknown>) => t.api('PATCH', `/result/${id}`, { token: nodeToken, body }),
    view: async () => (await t.api('GET', `/result/${id}`, { token: userToken })).body,
    task: async () => (await t.api('GET', `/task/${task.id}`, { token: userToken })).body,
  };
}

describe('run statuses through PATCH /result/{id}', () => {
  it('go forward pending → initializing → active → completed, with complete and finished_at agreeing', async () => {
    const r = await run();
    for (const status of ['initializing', 'active']) {
      const a = await r.patch({ status });
      expect(a.status).toBe(200);
      expect(a.body).toMatchObject({ status, finished_at: null });
      expect(await r.task()).toMatchObject({ status, complete: false });
    }
    const done = await r.patch({
      status: 'completed',
      result: 'b3V0',
      log: 'ok',
      finished_at: '2024-05-01T10:05:00',
    });
    expect(done.body).toMatchObject({ status: 'completed', finished_at: '2024-05-01T10:05:00+00:00' });
    expect(await r.task()).toMatchObject({ status: 'completed', complete: true });
  });

  it("take a held run's 'awaiting release' with no content, the task still active and open, then its release or refusal", async () => {
    for (const end of ['completed', 'release refused', 'output refused'] as const) {
      const r = await run();
      await r.patch({ status: 'active' });
      const held = await r.patch({ status: 'awaiting release' });
      expect(held.status).toBe(200);
      expect(held.body).toMatchObject({
        status: 'awaiting release',
        finished_at: null,
        result: null,
        log: null,
      });
      expect(await r.task()).toMatchObject({ status: 'active', complete: false });
      const listed = async (status: string) =>
        (
          (await t.api('GET', '/task', { token: t.rootToken, query: { status } })).body as { id: number }[]
        ).map((x) => x.id);
      expect(await listed('active')).toContain(r.taskId);
      expect(await listed('completed')).not.toContain(r.taskId);
      expect((await r.patch({ status: 'active' })).status).toBe(400);
      const ended = await r.patch({ status: end, log: 'note', finished_at: '2024-05-01T10:05:00' });
      expect(ended.status).toBe(200);
      expect(await r.task()).toMatchObject({
        status: end === 'completed' ? 'completed' : 'failed',
        complete: true,
      });
    }
  });

  it('refuse a move back with a 400 naming the transition, and keep the run where it was', async () => {
    const r = await run();
    await r.patch({ status: 'active' });
    const back = await r.patch({ status: 'initializing' });
    expect(back.status).toBe(400);
    expect(back.body.msg).toBe(
      `Result ${r.id} cannot go from 'active' to 'initializing': a run never goes back from 'active' to 'initializing'.`,
    );
    const pending = await r.patch({ status: 'pending' });
    expect(pending.status).toBe(400);
    expect((await r.view()).status).toBe('active');
  });

  it('refuse a status that does not exist, listing the ones that do', async () => {
    const r = await run();
    const bad = await r.patch({ status: 'done' });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toContain("'done' is not a run status (one of: 'pending', 'initializing', 'active'");
    expect(bad.body.msg).toContain("'unexpected output', 'cancelled'");
    expect((await r.view()).status).toBe('pending');
  });

  it('give a finished status without finished_at the server time, so the task is complete', async () => {
    const r = await run();
    const before = Date.now();
    const a = await r.patch({ status: 'not allowed', log: 'refused by policy' });
    expect(a.status).toBe(200);
    expect(a.body.status).toBe('not allowed');
    expect(Date.parse(a.body.finished_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(await r.task()).toMatchObject({ status: 'failed', complete: true });
  });

  it("take a 3.6+ node's status-only failure, then its final report with the log", async () => {
    const r = await run();
    await r.patch({ started_at: '2024-05-01T10:00:00' });
    expect((await r.patch({ status: 'start failed' })).status).toBe(200);
    const final = await r.patch({
      status: 'start failed',
      result: '',
      log: 'Container failed to start',
      finished_at: '2024-05-01T10:00:05',
    });
    expect(final.status).toBe(200);
    expect(await r.view()).toMatchObject({
      status: 'start failed',
      log: 'Container failed to start',
      result: '',
    });
    // Only once: the report is now taken, and another one is refused.
    const other = await r.patch({ status: 'start failed', result: '', log: 'something else' });
    expect(other.status).toBe(400);
    expect(other.body.msg).toBe(
      `Result ${r.id} has finished ('start failed') and its report can no longer be changed.`,
    );
  });

  it('finish the run of a 3.3–3.5 node (no status) as completed', async () => {
    const r = await run();
    await r.patch({ started_at: '2024-05-01T10:00:00' });
    const final = await r.patch({ result: 'b3V0', log: 'ok', finished_at: '2024-05-01T10:01:00' });
    expect(final.body).toMatchObject({ status: 'completed', finished_at: '2024-05-01T10:01:00+00:00' });
  });

  it('refuse finished_at with an open status', async () => {
    const r = await run();
    const bad = await r.patch({ status: 'active', finished_at: '2024-05-01T10:01:00' });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toBe(
      `Result ${r.id}: a report with finished_at needs a finished status, and 'active' is not one.`,
    );
    expect(await r.view()).toMatchObject({ status: 'pending', finished_at: null });
  });

  it('never move a finished run: not to another finished status, not back to an open one', async () => {
    const r = await run();
    await r.patch({ status: 'crashed', result: '', log: 'exit 1', finished_at: '2024-05-01T10:01:00' });
    for (const status of ['completed', 'active', 'pending', 'killed by user']) {
      const a = await r.patch({ status, finished_at: '2024-05-01T10:02:00' });
      expect(a.status).toBe(400);
      expect(a.body.msg).toBe(
        `Result ${r.id} cannot go from 'crashed' to '${status}': a run that has finished ('crashed') never changes its status.`,
      );
    }
    expect(await r.view()).toMatchObject({
      status: 'crashed',
      log: 'exit 1',
      finished_at: '2024-05-01T10:01:00+00:00',
    });
  });
});

describe('the task option cancel_on_failure', () => {
  /** Four organizations with a node each; a Researcher of the first posts a task to all four. */
  async function posted(cancelOnFailure: boolean | undefined) {
    const orgs: number[] = [];
    for (let i = 0; i < 4; i++) orgs.push(await t.fx.organization());
    const collab = await t.fx.collaboration(orgs);
    const nodes: string[] = [];
    for (const org of orgs) nodes.push(await (await t.fx.node(org, collab)).token());
    const user = await t.fx.user(orgs[0]!, { roles: ['Researcher'] });
    const token = await user.token();
    const task = await t.api('POST', '/task', {
      token,
      body: {
        collaboration_id: collab,
        name: 'all or nothing',
        image: 'federa/average-python:local',
        organizations: orgs.map((id) => ({ id, input: 'anNvbi57fQ==' })),
        ...(cancelOnFailure === undefined ? {} : { cancel_on_failure: cancelOnFailure }),
      },
    });
    expect(task.status, JSON.stringify(task.body)).toBe(201);
    const runs = (await t.api('GET', `/task/${task.body.id}/result`, { token })).body as { id: number }[];
    const ids = runs.map((r) => r.id).sort((a, b) => a - b);
    const patch = (i: number, body: Record<string, unknown>) =>
      t.api('PATCH', `/result/${ids[i]}`, { token: nodes[i], body });
    const statuses = async () =>
      (
        (await t.api('GET', `/task/${task.body.id}/result`, { token })).body as {
          id: number;
          status: string;
        }[]
      )
        .sort((a, b) => a.id - b.id)
        .map((r) => r.status);
    return { patch, statuses, taskId: task.body.id as number, token };
  }

  it('cancels the runs still pending when one fails; runs a node took on go on', async () => {
    const p = await posted(true);
    await p.patch(1, { status: 'active' });
    await p.patch(2, { status: 'initializing' });
    const failed = await p.patch(0, {
      status: 'crashed',
      result: '',
      log: 'exit 1',
      finished_at: '2024-05-01T10:00:00',
    });
    expect(failed.status).toBe(200);
    expect(await p.statuses()).toEqual(['crashed', 'active', 'initializing', 'cancelled']);
    // The cancelled run is finished: its node can no longer take it on.
    const late = await p.patch(3, { status: 'initializing' });
    expect(late.status).toBe(400);
    expect(late.body.msg).toContain("cannot go from 'cancelled' to 'initializing'");
    const task = await t.api('GET', `/task/${p.taskId}`, { token: p.token });
    expect(task.body).toMatchObject({ status: 'failed', complete: false, cancel_on_failure: true });
  });

  it('cancels nothing without the option, or when the run was killed', async () => {
    const without = await posted(undefined);
    await without.patch(0, { status: 'crashed', finished_at: '2024-05-01T10:00:00' });
    expect(await without.statuses()).toEqual(['crashed', 'pending', 'pending', 'pending']);
    expect(
      (await t.api('GET', `/task/${without.taskId}`, { token: without.token })).body.cancel_on_failure,
    ).toBe(false);
    const killed = await posted(true);
    await killed.patch(0, { status: 'killed by user' });
    expect(await killed.statuses()).toEqual(['killed by user', 'pending', 'pending', 'pending']);
  });
});
