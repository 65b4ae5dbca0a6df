import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../uri.js';

/**
 * `task_count.version`: moves whenever the set of a collaboration's tasks changes (a task created, deleted, or
 * moved in or out), kept by the same triggers as the count (0012, 0016). `GET /collaboration/{id}` lists every task
 * of the collaboration, an answer that grows with each task (the 3.x contract); the server keeps its last answer
 * for each collaboration and gives it again while the version and the rest of what it shows read the same
 * (serializers/collaboration.ts; docs/performance.md, eleventh session). Collaboration ids are never given twice
 * (AUTOINCREMENT, serial), so a version belongs to one collaboration for good.
 */
export const taskSetVersion = (dialect: DialectName) => ({
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .alterTable('task_count')
      .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    if (dialect === 'sqlite') {
      for (const name of ['task_count_insert', 'task_count_delete', 'task_count_move'])
        await sql`drop trigger ${sql.ref(name)}`.execute(db);
      await sql`create trigger task_count_insert after insert on task when new.collaboration_id is not null begin
        insert into task_count (collaboration_id, n, version) values (new.collaboration_id, 1, 1)
          on conflict (collaboration_id) do update set n = n + 1, version = version + 1;
      end`.execute(db);
      await sql`create trigger task_count_delete after delete on task when old.collaboration_id is not null begin
        update task_count set n = n - 1, version = version + 1 where collaboration_id = old.collaboration_id;
      end`.execute(db);
      await sql`create trigger task_count_move after update of collaboration_id on task
        when old.collaboration_id is not new.collaboration_id begin
        update task_count set n = n - 1, version = version + 1 where collaboration_id = old.collaboration_id;
        insert into task_count (collaboration_id, n, version)
          select new.collaboration_id, 1, 1 where new.collaboration_id is not null
          on conflict (collaboration_id) do update set n = n + 1, version = version + 1;
      end`.execute(db);
      return;
    }
    // A collaboration's tasks above an id (its answer's new tasks) read from the index alone; SQLite's index on
    // collaboration_id holds the rowid, the task's id, already.
    await db.schema
      .createIndex('task_collaboration_id')
      .on('task')
      .columns(['collaboration_id', 'id'])
      .execute();
    await db.schema.dropIndex('task_collaboration').execute();
    // The triggers (deferred since 0016) call this function: replacing it is enough.
    await sql`create or replace function task_count_change() returns trigger language plpgsql as $$
      begin
        if tg_op <> 'INSERT' and old.collaboration_id is not null then
          update task_count set n = n - 1, version = version + 1 where collaboration_id = old.collaboration_id;
        end if;
        if tg_op <> 'DELETE' and new.collaboration_id is not null then
          insert into task_count as c (collaboration_id, n, version) values (new.collaboration_id, 1, 1)
            on conflict (collaboration_id) do update set n = c.n + 1, version = c.version + 1;
        end if;
        return null;
      end $$`.execute(db);
  },
});
