import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * Deletes a task with its results and their ports. Sub-tasks are kept (as vantage6); their `parent` is
 * cleared so no reference points at a deleted task.
 */
export async function deleteTask(db: Kysely<Database>, taskId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('port')
      .where('result_id', 'in', (eb) =>
        eb.selectFrom('result').select('result.id').where('result.task_id', '=', taskId),
      )
      .execute();
    await trx.deleteFrom('result').where('task_id', '=', taskId).execute();
    await trx.updateTable('task').set({ parent_id: null }).where('parent_id', '=', taskId).execute();
    await trx.deleteFrom('task').where('id', '=', taskId).execute();
  });
}
