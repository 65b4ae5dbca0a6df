import type { Kysely } from 'kysely';

/**
 * Sessions (docs/security.md, "Sessions, tokens and login"): one row per login of a user or node. Its access and
 * refresh tokens name it (claim `sid`); a token of an ended or expired session is refused. `refresh_jti` is the
 * one refresh token of the session that may be used next (rotation); `login_jti` the one issued at login, which
 * 3.3–3.7 clients keep using (see `legacy_refresh_reuse`).
 */
export const sessionsMigration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('session')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('kind', 'varchar(8)', (c) => c.notNull())
      .addColumn('subject_id', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('login_jti', 'varchar(36)', (c) => c.notNull())
      .addColumn('refresh_jti', 'varchar(36)', (c) => c.notNull())
      .addColumn('rotated', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('ended_at', 'text')
      .addColumn('end_reason', 'varchar(32)')
      .execute();
    await db.schema.createIndex('session_subject').on('session').columns(['kind', 'subject_id']).execute();
  },
};
