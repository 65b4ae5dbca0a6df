import type { Kysely } from 'kysely';

/**
 * An index that answers the per-task result summary (status counts, finished count, last finish) of every task
 * listing from the index alone, without reading the result rows and their large input/output texts.
 */
export const resultSummaryIndex = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createIndex('result_task_status_finished')
      .on('result')
      .columns(['task_id', 'status', 'finished_at'])
      .execute();
  },
};
