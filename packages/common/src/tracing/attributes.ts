/**
 * The only attributes a Federa span carries: methods, route patterns, status codes, ids and outcomes. A task's
 * input, its result, its log and any error message (which may quote them) never go into a span; keeping the names
 * to this list makes that a type error rather than a review comment.
 */
export interface TraceAttributes {
  'http.request.method'?: string;
  /** A route's pattern (`/api/task/:id`), never the path or query that was called. */
  'http.route'?: string;
  'http.response.status_code'?: number;
  'federa.task.id'?: number;
  'federa.parent_task.id'?: number;
  'federa.run.id'?: number;
  'federa.result.id'?: number;
  'federa.node.id'?: number;
  'federa.organization.id'?: number;
  /** The status a run was reported with (a fixed word of docs/run-statuses.md). */
  'federa.run.status'?: string;
  /** Set on the span of a run a node picked up again after it restarted. */
  'federa.run.resumed'?: boolean;
  /** How many organizations a task was sent to. */
  'federa.task.organizations'?: number;
  /** A fixed word for the kind of failure (`start_failed`, `error`), never a message. */
  'error.type'?: string;
}

/** Every attribute name a span may carry (the tests check spans against it). */
export const TRACE_ATTRIBUTE_NAMES: readonly (keyof TraceAttributes)[] = [
  'http.request.method',
  'http.route',
  'http.response.status_code',
  'federa.task.id',
  'federa.parent_task.id',
  'federa.run.id',
  'federa.result.id',
  'federa.node.id',
  'federa.organization.id',
  'federa.run.status',
  'federa.run.resumed',
  'federa.task.organizations',
  'error.type',
];
