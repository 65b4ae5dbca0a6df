import type { TestApp } from './test-app.js';

/** Test data shared by the task route tests. */

/** Two organizations in a collaboration, each with a node, and a researcher of the first. */
export async function taskWorld(t: TestApp) {
  const orgA = await t.fx.organization();
  const orgB = await t.fx.organization();
  const collab = await t.fx.collaboration([orgA, orgB]);
  const nodeA = await t.fx.node(orgA, collab);
  const nodeB = await t.fx.node(orgB, collab);
  const researcher = await t.fx.user(orgA, { roles: ['Researcher'] });
  return { orgA, orgB, collab, nodeA, nodeB, researcher, token: await researcher.token() };
}

export const taskBody = (collab: number, orgs: number[], extra: Record<string, unknown> = {}) => ({
  collaboration_id: collab,
  organizations: orgs.map((id) => ({ id, input: `input-for-${id}` })),
  name: 'average',
  image: 'harbor.example.org/algorithms/average:1.0',
  description: 'mean age',
  ...extra,
});

/** How many tasks and results the database holds. */
export async function countTaskRows(t: TestApp) {
  const db = t.ctx.dbh.db;
  const tasks = await db
    .selectFrom('task')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  const results = await db
    .selectFrom('result')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return { tasks: Number(tasks.n), results: Number(results.n) };
}
