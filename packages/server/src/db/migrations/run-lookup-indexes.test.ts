import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestApp,
  statementsDuring,
  TEST_DIALECT,
  type SentStatement,
  type TestApp,
} from '@federa/testing';

// A node's two fetches (docs/node-protocol.md) find its organization's runs through the indexes of migration 0017,
// not by reading every run of the task (the summary index `result_task_status_finished`, which each of the 1,000
// nodes of a 1,000-organization task read whole before) or every run the organization ever had. Checked on the
// plan the database makes for the very statements the route sends, with the parameters it sends.

let t: TestApp;
let node: { id: number; token: string };
let taskId: number;

beforeAll(async () => {
  t = await startTestApp();
  const orgs: number[] = [];
  for (let i = 0; i < 12; i++) orgs.push(await t.fx.organization());
  const collab = await t.fx.collaboration(orgs);
  const own = await t.fx.node(orgs[5]!, collab);
  node = { id: own.id, token: await own.token() };
  for (let i = 0; i < 4; i++) taskId = (await t.fx.task(collab, orgs)).id;
  // PostgreSQL plans from statistics, which autovacuum keeps on a running server; SQLite has none unless asked.
  if (TEST_DIALECT === 'postgres') await sql`analyze result`.execute(t.ctx.dbh.db);
});

afterAll(async () => {
  await t?.close();
});

/** The node's fetch, and the statements of it that read its organization's open runs. */
async function runLookups(query: string): Promise<SentStatement[]> {
  const { result, statements } = await statementsDuring(t, () =>
    t.api('GET', `/result?state=open&include=task&node_id=${node.id}${query}`, { token: node.token }),
  );
  expect(result.status).toBe(200);
  expect(result.body).toHaveLength(query ? 1 : 4);
  const lookups = statements.filter(
    (s) => /"result"\."organization_id" = /.test(s.sql) && /"result"\."finished_at" is null/.test(s.sql),
  );
  expect(lookups.length).toBeGreaterThan(0);
  return lookups;
}

/** How the database plans a statement, as text; PostgreSQL is kept off whole-table reads (a test table is small). */
async function planOf(statement: SentStatement): Promise<string> {
  if (TEST_DIALECT === 'postgres')
    return t.ctx.dbh.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const plan = await trx.executeQuery<Record<string, string>>(
        CompiledQuery.raw(`explain ${statement.sql}`, [...statement.parameters]),
      );
      return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    });
  const plan = await t.ctx.dbh.db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`explain query plan ${statement.sql}`, [...statement.parameters]),
  );
  return plan.rows.map((r) => r.detail).join('\n');
}

describe("a node's fetch of its runs", () => {
  it('reads the run of a task for its organization alone', async () => {
    for (const statement of await runLookups(`&task_id=${taskId}`)) {
      const plan = await planOf(statement);
      expect(plan).toContain('result_task_organization');
      expect(plan).not.toContain('result_task_status_finished');
    }
  });

  it("reads its organization's open runs, not all its runs", async () => {
    for (const statement of await runLookups('')) {
      const plan = await planOf(statement);
      // By the organization's open runs, or (PostgreSQL, for a collaboration of few tasks) by the run of each task
      // for the organization: either way one entry per run it may return, never the whole of a task's runs.
      expect(plan).toMatch(/result_organization_finished|result_task_organization/);
      expect(plan).not.toContain('result_task_status_finished');
    }
  });
});
