import type { Kysely, CreateTableBuilder } from 'kysely';
import { sql } from 'kysely';
import type { DialectName } from '../uri.js';

/** The first schema: every table of `schema.ts`. Written once for SQLite and PostgreSQL alike. */
export function initialMigration(dialect: DialectName) {
  // SQLite: INTEGER PRIMARY KEY AUTOINCREMENT; PostgreSQL: serial.
  const withId = <T extends string>(t: CreateTableBuilder<T>): CreateTableBuilder<T, 'id'> =>
    dialect === 'postgres'
      ? t.addColumn('id', 'serial', (c) => c.primaryKey())
      : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());

  return {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async up(db: Kysely<any>): Promise<void> {
      await withId(db.schema.createTable('authenticatable'))
        .addColumn('type', 'varchar(16)', (c) => c.notNull())
        .execute();

      await withId(db.schema.createTable('organization'))
        .addColumn('name', 'text')
        .addColumn('domain', 'text')
        .addColumn('address1', 'text')
        .addColumn('address2', 'text')
        .addColumn('zipcode', 'text')
        .addColumn('country', 'text')
        .addColumn('public_key', 'text', (c) => c.notNull().defaultTo(''))
        .execute();

      await withId(db.schema.createTable('collaboration'))
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('encrypted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();

      await db.schema
        .createTable('member')
        .addColumn('collaboration_id', 'integer', (c) =>
          c.notNull().references('collaboration.id').onDelete('cascade'),
        )
        .addColumn('organization_id', 'integer', (c) =>
          c.notNull().references('organization.id').onDelete('cascade'),
        )
        .addPrimaryKeyConstraint('member_pk', ['collaboration_id', 'organization_id'])
        .execute();

      await db.schema
        .createTable('user')
        .addColumn('id', 'integer', (c) =>
          c.primaryKey().references('authenticatable.id').onDelete('cascade'),
        )
        .addColumn('username', 'text', (c) => c.notNull().unique())
        .addColumn('firstname', 'text')
        .addColumn('lastname', 'text')
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password', 'text', (c) => c.notNull())
        .addColumn('organization_id', 'integer', (c) => c.notNull().references('organization.id'))
        .addColumn('failed_login_attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_login_attempt', 'text')
        .addColumn('status', 'text')
        .addColumn('last_seen', 'text')
        .execute();

      await db.schema
        .createTable('node')
        .addColumn('id', 'integer', (c) =>
          c.primaryKey().references('authenticatable.id').onDelete('cascade'),
        )
        .addColumn('name', 'text')
        .addColumn('api_key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('organization_id', 'integer', (c) => c.notNull().references('organization.id'))
        .addColumn('collaboration_id', 'integer', (c) =>
          c.references('collaboration.id').onDelete('set null'),
        )
        .addColumn('ip', 'text')
        .addColumn('status', 'text')
        .addColumn('last_seen', 'text')
        .execute();
      await db.schema
        .createIndex('node_org_collab')
        .on('node')
        .columns(['organization_id', 'collaboration_id'])
        .execute();

      await withId(db.schema.createTable('node_config'))
        .addColumn('node_id', 'integer', (c) => c.notNull().references('node.id').onDelete('cascade'))
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();

      await withId(db.schema.createTable('role'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('organization_id', 'integer', (c) => c.references('organization.id').onDelete('cascade'))
        .execute();

      await withId(db.schema.createTable('rule'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('operation', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addUniqueConstraint('rule_unique', ['name', 'operation', 'scope'])
        .execute();

      for (const [table, left, leftRef] of [
        ['role_rule', 'role_id', 'role.id'],
        ['user_role', 'user_id', 'user.id'],
        ['user_rule', 'user_id', 'user.id'],
      ] as const) {
        const right = table === 'user_role' ? 'role_id' : 'rule_id';
        const rightRef = table === 'user_role' ? 'role.id' : 'rule.id';
        await db.schema
          .createTable(table)
          .addColumn(left, 'integer', (c) => c.notNull().references(leftRef).onDelete('cascade'))
          .addColumn(right, 'integer', (c) => c.notNull().references(rightRef).onDelete('cascade'))
          .addPrimaryKeyConstraint(`${table}_pk`, [left, right])
          .execute();
      }

      await withId(db.schema.createTable('task'))
        .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('image', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('collaboration_id', 'integer', (c) =>
          c.references('collaboration.id').onDelete('set null'),
        )
        .addColumn('run_id', 'integer', (c) => c.notNull())
        .addColumn('parent_id', 'integer', (c) => c.references('task.id').onDelete('set null'))
        .addColumn('database', 'text')
        .addColumn('initiator_id', 'integer', (c) => c.notNull().references('organization.id'))
        .addColumn('init_user_id', 'integer', (c) => c.references('user.id').onDelete('set null'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('task_collaboration').on('task').column('collaboration_id').execute();
      await db.schema.createIndex('task_run').on('task').column('run_id').execute();
      await db.schema.createIndex('task_parent').on('task').column('parent_id').execute();

      await withId(db.schema.createTable('result'))
        .addColumn('task_id', 'integer', (c) => c.notNull().references('task.id').onDelete('cascade'))
        .addColumn('organization_id', 'integer', (c) => c.notNull().references('organization.id'))
        .addColumn('input', 'text')
        .addColumn('result', 'text')
        .addColumn('log', 'text')
        .addColumn('assigned_at', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text')
        .addColumn('finished_at', 'text')
        .addColumn('status', 'text')
        .execute();
      await db.schema.createIndex('result_task').on('result').column('task_id').execute();
      await db.schema.createIndex('result_org').on('result').column('organization_id').execute();

      await withId(db.schema.createTable('port'))
        .addColumn('result_id', 'integer', (c) => c.notNull().references('result.id').onDelete('cascade'))
        .addColumn('port', 'integer', (c) => c.notNull())
        .addColumn('label', 'text')
        .execute();

      await db.schema
        .createTable('used_token')
        .addColumn('jti', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('used_at', 'text', (c) => c.notNull())
        .execute();

      if (dialect === 'sqlite') await sql`PRAGMA foreign_keys = ON`.execute(db);
    },
  };
}
