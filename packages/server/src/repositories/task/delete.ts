import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * Deletes a task with its results and their ports. Sub-tasks are kept (as vantage6); their `parent` is
 * cleared so no reference points at a deleted task. Returns the outputs of its results held in the result store
 * (docs/large-results.md), for the caller to remove from the store.
 */
export async function deleteTask(
  db: Kysely<Database>,
  taskId: number,
): Promise<{ id: number; result_sha256: string }[]> {
  return db.transaction().execute(async (trx) => {
    const stored = await trx
      .selectFrom('result')
      .select(['id', 'result_sha256'])
      .where('task_id', '=', taskId)
      .where('result_sha256', 'is not', null)
      .$narrowType<{ result_sha256: string }>()
      .execute();
    await trx
      .deleteFrom('port')
      .where('result_id', 'in', (eb) =>
        eb.selectFrom('result').select('result.id').where('result.task_id', '=', taskId),
      )
      .execute();
    await trx.deleteFrom('result').where('task_id', '=', taskId).execute();
    await trx.updateTable('task').set({ parent_id: null }).where('parent_id', '=', taskId).execute();
    await trx.deleteFrom('task').where('id', '=', taskId).execute();
    return stored;
  });
}
