import type { Kysely } from 'kysely';

/**
 * `store_function.output`: what a store function's result holds (a declared output, docs/output-control.md), as
 * JSON, for the nodes' disclosure checks. Null for a function that declares none, as every function stored before
 * this migration.
 */
export const storeFunctionOutput = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('store_function').addColumn('output', 'text').execute();
  },
};
