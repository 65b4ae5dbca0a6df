import type { Kysely } from 'kysely';

/**
 * `task.traceparent`: the W3C trace context of the request that created the task (docs/observability.md#traces).
 * The nodes read it with the task, so that the spans of its runs, and of the sub-tasks their algorithms create,
 * join the trace the researcher's request began. Null when the task was created without one.
 */
export const taskTraceparent = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('task').addColumn('traceparent', 'text').execute();
  },
};
