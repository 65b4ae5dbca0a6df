import type { CreateTableBuilder, Kysely } from 'kysely';
import type { DialectName } from '../uri.js';

/**
 * The algorithm store (docs/store.md): algorithms with their functions, the reviews that approve them, the store's
 * policies and the roles its users hold. A function's arguments, databases and visualizations are kept as the
 * JSON the author wrote (validated on the way in): they are read and written with their function, never queried
 * on their own. The same tables serve the store inside a server and a store running as its own process.
 */
export const algorithmStore = (dialect: DialectName) => ({
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    // SQLite: INTEGER PRIMARY KEY AUTOINCREMENT (ids never given twice); PostgreSQL: serial.
    const withId = <T extends string>(t: CreateTableBuilder<T>): CreateTableBuilder<T, 'id'> =>
      dialect === 'postgres'
        ? t.addColumn('id', 'serial', (c) => c.primaryKey())
        : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
    await withId(db.schema.createTable('store_algorithm'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text')
      .addColumn('description', 'text')
      .addColumn('image', 'text', (c) => c.notNull())
      .addColumn('digest', 'text')
      .addColumn('code_url', 'text', (c) => c.notNull())
      .addColumn('documentation_url', 'text')
      .addColumn('partitioning', 'text', (c) => c.notNull())
      .addColumn('vantage6_version', 'text', (c) => c.notNull())
      .addColumn('submission_comments', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('developer_id', 'integer', (c) => c.notNull())
      .addColumn('submitted_at', 'text', (c) => c.notNull())
      .addColumn('approved_at', 'text')
      .addColumn('invalidated_at', 'text')
      .addColumn('replaced_by_id', 'integer')
      .execute();
    await db.schema
      .createIndex('store_algorithm_status')
      .on('store_algorithm')
      .columns(['status', 'id'])
      .execute();
    await db.schema.createIndex('store_algorithm_image').on('store_algorithm').column('image').execute();
    await withId(db.schema.createTable('store_function'))
      .addColumn('algorithm_id', 'integer', (c) =>
        c.notNull().references('store_algorithm.id').onDelete('cascade'),
      )
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text')
      .addColumn('description', 'text')
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('standalone', 'integer', (c) => c.notNull())
      .addColumn('arguments', 'text', (c) => c.notNull())
      .addColumn('databases', 'text', (c) => c.notNull())
      .addColumn('ui_visualizations', 'text', (c) => c.notNull())
      .addUniqueConstraint('store_function_name', ['algorithm_id', 'name'])
      .execute();
    await withId(db.schema.createTable('store_user'))
      .addColumn('server_url', 'text', (c) => c.notNull())
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('organization_id', 'integer')
      .addColumn('email', 'text')
      .addColumn('roles', 'text', (c) => c.notNull())
      .addUniqueConstraint('store_user_identity', ['server_url', 'username'])
      .execute();
    await withId(db.schema.createTable('store_review'))
      .addColumn('algorithm_id', 'integer', (c) =>
        c.notNull().references('store_algorithm.id').onDelete('cascade'),
      )
      .addColumn('reviewer_id', 'integer', (c) => c.notNull().references('store_user.id'))
      .addColumn('requested_by_id', 'integer', (c) => c.notNull().references('store_user.id'))
      .addColumn('requested_at', 'text', (c) => c.notNull())
      .addColumn('submitted_at', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('comment', 'text')
      .execute();
    // Every foreign key column leads an index (a deleted user or collaboration is found without a scan).
    await db.schema.createIndex('store_review_algorithm').on('store_review').column('algorithm_id').execute();
    await db.schema.createIndex('store_review_reviewer').on('store_review').column('reviewer_id').execute();
    await db.schema
      .createIndex('store_review_requested_by')
      .on('store_review')
      .column('requested_by_id')
      .execute();
    await db.schema
      .createTable('store_policy')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
    // The stores a server's users may use (`GET /algorithmstore`), besides the one inside the server.
    await withId(db.schema.createTable('algorithm_store'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('collaboration_id', 'integer', (c) => c.references('collaboration.id').onDelete('cascade'))
      .execute();
    await db.schema
      .createIndex('algorithm_store_collaboration')
      .on('algorithm_store')
      .column('collaboration_id')
      .execute();
    // Which store algorithm a task runs: the image column then holds the approved image with its digest.
    await db.schema.alterTable('task').addColumn('store_algorithm_id', 'integer').execute();
    await db.schema.alterTable('task').addColumn('algorithm_store_id', 'integer').execute();
  },
});
