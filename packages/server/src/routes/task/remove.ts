import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.js';
import type { TaskRow } from '../../db/schema.js';
import { deleteTask, hasOpenRunInTree, killTask } from '../../repositories/task/index.js';

/**
 * Removes a task as `DELETE /task/{id}` does, for every route that removes tasks (deleting an organization removes
 * the tasks it created): an unfinished task is killed first (`kill_containers`), then the task and its results go,
 * and the result store gives up everything its runs held (named outputs and uploads not yet named).
 */
export async function removeTask(ctx: AppContext, task: TaskRow, log: FastifyBaseLogger): Promise<void> {
  const db = ctx.dbh.db;
  if (await hasOpenRunInTree(db, task.id)) await killTask(db, ctx.events, task);
  await removeRunOutputs(ctx, await deleteTask(db, task.id), log);
}

/** Removes from the result store what runs `ids` (deleted) held; a failure is logged, the rest goes on. */
export async function removeRunOutputs(ctx: AppContext, ids: readonly number[], log: FastifyBaseLogger) {
  for (const id of ids)
    await ctx.results
      .deleteRunOutputs(id)
      .catch((error: unknown) =>
        log.warn(
          { event: 'result.store_delete_failed', result_id: id, err: (error as Error).message },
          'an output of a deleted run could not be removed from the result store',
        ),
      );
}
