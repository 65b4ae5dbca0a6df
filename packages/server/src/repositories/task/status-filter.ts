import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import { ACTIVE_LIKE_RUN_STATUSES, OPEN_RUN_STATUSES } from '@federa/common';

/**
 * A condition on `task` that holds when the task's aggregate status (serializers/task.ts `taskStatus`) equals
 * `status`, written in SQL so the status filter works with pagination.
 */
export function taskStatusIs(eb: ExpressionBuilder<Database, 'task'>, status: string) {
  const results = () =>
    eb.selectFrom('result').select('result.id').whereRef('result.task_id', '=', 'task.id');
  const open: string[] = [...OPEN_RUN_STATUSES];
  const any = results();
  const anyKnown = results().where('result.status', 'is not', null);
  const anyFailed = results()
    .where('result.status', 'is not', null)
    .where('result.status', 'not in', [...open, 'completed']);
  const anyOf = (s: string) => results().where('result.status', '=', s);
  const anyActive = results().where('result.status', 'in', [...ACTIVE_LIKE_RUN_STATUSES]);
  const notFailed = eb.not(eb.exists(anyFailed));
  switch (status) {
    case 'unknown':
      return eb.and([eb.exists(any), eb.not(eb.exists(anyKnown))]);
    case 'failed':
      return eb.exists(anyFailed);
    case 'active':
      return eb.and([notFailed, eb.exists(anyActive)]);
    case 'initializing':
      return eb.and([notFailed, eb.not(eb.exists(anyActive)), eb.exists(anyOf('initializing'))]);
    case 'pending':
      return eb.and([
        notFailed,
        eb.not(eb.exists(anyActive)),
        eb.not(eb.exists(anyOf('initializing'))),
        eb.exists(anyOf('pending')),
      ]);
    case 'completed':
      return eb.and([
        notFailed,
        ...open.map((s) => eb.not(eb.exists(anyOf(s)))),
        eb.or([eb.not(eb.exists(any)), eb.exists(anyKnown)]),
      ]);
    default:
      // No task has another status; ids are positive, so this matches nothing on every dialect.
      return eb('task.id', '<', 0);
  }
}
