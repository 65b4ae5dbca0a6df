import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

// `GET /column`: the column names the nodes of a collaboration shared (names only), for the task form's pickers;
// who did not share them is said; only those who may view the collaboration read them.

let t: TestApp;
let collab: number;
let orgA: number;
let orgB: number;
let researcher: string;

beforeAll(async () => {
  t = await startTestApp();
  orgA = await t.fx.organization();
  orgB = await t.fx.organization();
  collab = await t.fx.collaboration([orgA, orgB]);
  const nodeA = await t.fx.node(orgA, collab);
  await t.fx.node(orgB, collab);
  researcher = await (await t.fx.user(orgA, { roles: ['Researcher'] })).token();
  // What node A's node_info_update stored: its configuration and the names of two databases.
  await t.ctx.dbh.db
    .insertInto('node_config')
    .values(
      [
        ['encryption', 'True'],
        ['columns.default', 'age'],
        ['columns.default', 'sex'],
        ['columns.default', 'bmi'],
        ['columns.visits', 'date'],
      ].map(([key, value]) => ({ node_id: nodeA.id, key: key!, value: value! })),
    )
    .execute();
});
afterAll(async () => t.close());

describe('GET /column', () => {
  it('lists the names of a database with the organizations that have them, and who shared none', async () => {
    const r = await t.api('GET', `/column?collaboration_id=${collab}`, { token: researcher });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: [
        { name: 'age', organization_ids: [orgA] },
        { name: 'sex', organization_ids: [orgA] },
        { name: 'bmi', organization_ids: [orgA] },
      ],
      database: 'default',
      not_shared: [orgB],
    });
    const visits = await t.api('GET', `/column?collaboration_id=${collab}&database=visits`, {
      token: researcher,
    });
    expect(visits.body.data).toEqual([{ name: 'date', organization_ids: [orgA] }]);
  });

  it('is refused to an organization outside the collaboration, and names a missing collaboration', async () => {
    const outsider = await (await t.fx.user(await t.fx.organization(), { roles: ['Researcher'] })).token();
    const r = await t.api('GET', `/column?collaboration_id=${collab}`, { token: outsider });
    expect(r.status).toBe(401);
    expect(r.body.msg).toContain(`You lack the permission to view collaboration ${collab}`);
    const missing = await t.api('GET', '/column?collaboration_id=999999', { token: researcher });
    expect(missing.status).toBe(404);
    const bad = await t.api('GET', '/column?collaboration_id=x', { token: researcher });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toContain('collaboration_id');
  });
});
