import type { Kysely } from 'kysely';

/**
 * `login_failure`: failed password checks of an account counted per address (docs/security.md, "Who a lock keeps
 * out"). Before, the only lock was the account's counter on `user`, so anyone who knew a username could keep its
 * owner out from anywhere. `succeeded_at` marks an address the account's password was given from, which the
 * account-wide slowing never holds back. Rows go with their user (`repositories/user.ts` `deleteUser`).
 */
export const loginFailures = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('login_failure')
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('address', 'varchar(64)', (c) => c.notNull())
      .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_failure_at', 'text')
      .addColumn('succeeded_at', 'text')
      .addPrimaryKeyConstraint('login_failure_pk', ['user_id', 'address'])
      .execute();
    await db.schema.createIndex('login_failure_last').on('login_failure').column('last_failure_at').execute();
  },
};
