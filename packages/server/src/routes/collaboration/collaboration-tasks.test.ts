/** A collaboration's tasks (GET /collaboration/{id}/task), and results of foreign collaborations kept hidden. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, expectSecondPage, startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const ids = (r: ApiResponse): number[] => (r.body as { id: number }[]).map((x) => x.id);

describe('GET /collaboration/{id}/task', () => {
  it('lists the tasks of a member collaboration, with results on request, paginated', async () => {
    const a = await t.fx.organization();
    const b = await t.fx.organization();
    const c = await t.fx.collaboration([a, b]);
    const tasks = [];
    for (let i = 0; i < 5; i++) tasks.push((await t.fx.task(c, [a, b])).id);
    const elsewhere = await t.fx.collaboration([a]);
    await t.fx.task(elsewhere, [a]);
    const viewer = await t.fx.user(a, { roles: ['Viewer'] });
    const token = await viewer.token();
    const r = await t.api('GET', `/collaboration/${c}/task`, { token });
    expect(r.status).toBe(200);
    expect(ids(r)).toEqual(tasks);
    expect(r.body[0].results).toHaveLength(2);
    expect(Object.keys(r.body[0].results[0]).sort()).toEqual(['id', 'link', 'methods']);
    const full = await t.api('GET', `/collaboration/${c}/task`, { token, query: { include: 'results' } });
    expect(full.body[0].results[0]).toMatchObject({ organization: a, status: 'pending', input: 'aW5wdXQ=' });
    await expectSecondPage(t, `/collaboration/${c}/task`, token, tasks);
    const stranger = await t.fx.user(await t.fx.organization(), { roles: ['Viewer'] });
    expect((await t.api('GET', `/collaboration/${c}/task`, { token: await stranger.token() })).status).toBe(
      401,
    );
    expect((await t.api('GET', '/collaboration/999999/task', { token })).status).toBe(404);
    const node = await t.fx.node(b, c);
    expect(ids(await t.api('GET', `/collaboration/${c}/task`, { token: await node.token() }))).toEqual(tasks);
  });
});

describe('results of foreign collaborations stay hidden in task listings', () => {
  it('embeds no results for root in GET /collaboration/{id}/task and GET /node/{id}/task with include=results', async () => {
    const a = await t.fx.organization();
    const collab = await t.fx.collaboration([a]);
    const node = await t.fx.node(a, collab);
    await t.fx.task(collab, [a]);
    for (const path of [`/collaboration/${collab}/task`, `/node/${node.id}/task`]) {
      const r = await t.api('GET', path, { token: t.rootToken, query: { include: 'results' } });
      expect(r.status).toBe(200);
      expect(r.body).toHaveLength(1);
      expect(r.body[0].results).toEqual([]);
    }
    // A member of the collaboration does see them.
    const member = await t.fx.user(a, { rules: ['task.v_org', 'result.v_org'] });
    const mine = await t.api('GET', `/collaboration/${collab}/task`, {
      token: await member.token(),
      query: { include: 'results' },
    });
    expect(mine.body[0].results).toHaveLength(1);
  });
});
