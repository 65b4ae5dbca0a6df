import type { Kysely } from 'kysely';
import type { DialectName } from '../uri.js';

/**
 * Studies (vantage6 4.x; docs/vantage6-4.md#studies): a named subset of a collaboration's organizations that tasks
 * can be scoped to. `task.study_id` names the study a task was scoped to (null for every task before). A study is
 * removed with its collaboration, and an organization leaves a collaboration's studies when it leaves the
 * collaboration (repositories/collaboration.ts, repositories/study.ts).
 */
export const studies = (dialect: DialectName) => ({
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    const table = db.schema.createTable('study');
    await (
      dialect === 'postgres'
        ? table.addColumn('id', 'serial', (c) => c.primaryKey())
        : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    )
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('collaboration_id', 'integer', (c) => c.notNull().references('collaboration.id'))
      .execute();
    await db.schema.createIndex('study_collaboration').on('study').column('collaboration_id').execute();
    await db.schema
      .createTable('study_member')
      .addColumn('study_id', 'integer', (c) => c.notNull().references('study.id').onDelete('cascade'))
      .addColumn('organization_id', 'integer', (c) => c.notNull().references('organization.id'))
      .addPrimaryKeyConstraint('study_member_pk', ['study_id', 'organization_id'])
      .execute();
    await db.schema
      .createIndex('study_member_organization')
      .on('study_member')
      .column('organization_id')
      .execute();
    await db.schema.alterTable('task').addColumn('study_id', 'integer').execute();
  },
});
