import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../uri.js';

/**
 * `task_run_id`: the sequence a new run's id comes from on PostgreSQL (repositories/task/rows.ts `nextRunId`).
 * A run's id was the highest so far plus one, read in the task's own transaction: on SQLite, where one write
 * transaction runs at a time, that is safe; on PostgreSQL two tasks posted at the same moment read the same highest
 * id and shared a run (16 posted at once got 4 runs). The containers of one run share a temporary volume on each
 * node (`/mnt/tmp`, packages/node/src/runs/prepare-run.ts), so one researcher's algorithm could read another's
 * files, and `container_failed` named both runs. A sequence hands out each number once, whichever transaction or
 * instance asks.
 * It starts after the highest run id there is. Tasks that already share a run are left as they are: subtasks whose
 * parent was deleted share their run without a parent too, and cannot be told apart from them (docs/api.md, "Task").
 */
export const runSequence = (dialect: DialectName) => ({
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    if (dialect === 'sqlite') return;
    await sql`create sequence task_run_id as integer`.execute(db);
    await sql`select setval('task_run_id', coalesce((select max(run_id) from task), 0) + 1, false)`.execute(
      db,
    );
  },
});
