import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../uri.js';

/**
 * PostgreSQL: the triggers that keep `task_count` (0012) run when their transaction commits instead of at each row.
 * At the row, a new task locked its collaboration's count until its transaction committed, so the tasks posted at
 * the same moment in one collaboration waited for each other's runs to be written and committed (1.8 ms per insert
 * under bench/api-mixed); deferred, each holds it for its commit only. The
 * count still changes in the same commit as the tasks, so no reader sees one without the other. SQLite writes one
 * transaction at a time: nothing to change there.
 */
export const deferredTaskCount = (dialect: DialectName) => ({
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    if (dialect !== 'postgres') return;
    await sql`drop trigger task_count_insert_delete on task`.execute(db);
    await sql`drop trigger task_count_move on task`.execute(db);
    await sql`create constraint trigger task_count_insert_delete after insert or delete on task
      deferrable initially deferred for each row execute function task_count_change()`.execute(db);
    await sql`create constraint trigger task_count_move after update of collaboration_id on task
      deferrable initially deferred for each row
      when (old.collaboration_id is distinct from new.collaboration_id)
      execute function task_count_change()`.execute(db);
  },
});
