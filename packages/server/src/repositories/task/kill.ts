import type { Kysely } from 'kysely';
import type { Database, Task } from '../../db/schema.js';
import type { EventBus } from '../../context.js';
import { nowStored } from '../../http/datetime.js';
import { collaborationRoom } from './rows.js';

/** The status the server gives results it kills (docs/run-statuses.md). */
export const KILLED_STATUS = 'killed by user';

export interface KillEntry {
  task_id: number;
  result_id: number;
  organization_id: number;
}

/**
 * The kill procedure (docs/api.md#kill, docs/node-protocol.md#kill): emits `kill_containers` with one entry per result of
 * the task and of its direct sub-tasks (each with its own task id), then marks the results still open as
 * `killed by user`, finished now. Finished results keep their status and output: they are immutable.
 */
export async function killTask(
  db: Kysely<Database>,
  events: EventBus,
  task: Pick<Task, 'id' | 'collaboration_id'>,
): Promise<KillEntry[]> {
  const rows = await db
    .selectFrom('result')
    .innerJoin('task', 'task.id', 'result.task_id')
    .select(['result.id', 'result.task_id', 'result.organization_id'])
    .where((eb) => eb.or([eb('task.id', '=', task.id), eb('task.parent_id', '=', task.id)]))
    .orderBy('result.id')
    .execute();
  const killList = rows.map((r) => ({
    task_id: r.task_id,
    result_id: r.id,
    organization_id: r.organization_id,
  }));
  if (task.collaboration_id !== null) {
    events.emit(collaborationRoom(task.collaboration_id), 'kill_containers', {
      kill_list: killList,
      collaboration_id: task.collaboration_id,
    });
  }
  if (rows.length > 0) {
    await db
      .updateTable('result')
      .set({ status: KILLED_STATUS, finished_at: nowStored() })
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .where('finished_at', 'is', null)
      .execute();
  }
  return killList;
}
