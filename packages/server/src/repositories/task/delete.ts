import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * Deletes a task with its results and their ports. Sub-tasks are kept (as vantage6); their `parent` is
 * cleared so no reference points at a deleted task. Returns the ids of its results, for the caller to remove
 * what the result store holds for them (named outputs and uploads not yet named; docs/large-results.md).
 */
export async function deleteTask(db: Kysely<Database>, taskId: number): Promise<number[]> {
  return db.transaction().execute(async (trx) => {
    const runs = await trx.selectFrom('result').select('id').where('task_id', '=', taskId).execute();
    await trx
      .deleteFrom('port')
      .where('result_id', 'in', (eb) =>
        eb.selectFrom('result').select('result.id').where('result.task_id', '=', taskId),
      )
      .execute();
    await trx.deleteFrom('result').where('task_id', '=', taskId).execute();
    await trx.updateTable('task').set({ parent_id: null }).where('parent_id', '=', taskId).execute();
    await trx.deleteFrom('task').where('id', '=', taskId).execute();
    return runs.map((r) => r.id);
  });
}
