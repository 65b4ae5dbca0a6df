import type {
  Collaboration,
  CreatedTask,
  Node,
  NodeOnlinePeriod,
  NodeWithKey,
  Organization,
  Reference,
  Result as ResultWithRefs,
  Role,
  Rule,
  Task,
  TaskResult,
  User,
} from '@federa/common';

/**
 * The resources as the API returns them (docs/api.md#resources), declared once in `@federa/common` (the server serializes
 * with the same schemas). Field names are the wire's snake_case; a to-many reference list is `null` when empty.
 */
export type { Collaboration, CreatedTask, Node, NodeOnlinePeriod, Organization, Role, Rule, Task, User };

/** A link to another resource (docs/api.md#references): `link` is the path including the API prefix. */
export type Ref = Reference;

/** A node as `POST /node` returns it: the only time its API key is shown. */
export type NewNode = NodeWithKey;

/**
 * A result: one organization's run of a task (docs/api.md#result), with `result` still encrypted; `task` and
 * `organization` are references, or plain ids in the "task-result" form of `GET /task/{id}/result`.
 */
export type Result = ResultWithRefs | TaskResult;

/**
 * A result whose output has been decrypted: `result` holds the output value (parsed from `json.` outputs),
 * the raw bytes (`Buffer`) for other formats such as Python pickles, or `null` when the run has no output yet.
 */
export interface DecryptedResult extends Omit<Result, 'result'> {
  result: unknown;
  /** Id of the task, whichever form `task` has. */
  taskId: number;
  /** Id of the organization that ran it, whichever form `organization` has. */
  organizationId: number;
  /**
   * Set when the output could not be decrypted or parsed (e.g. it was encrypted for another organization);
   * `result` then keeps the string as the server sent it.
   */
  decryptionError?: string;
}

/** One page of a listing. */
export interface Page<T> {
  items: T[];
  /** Number of matching items over all pages (the `total-count` header). */
  total: number;
  page: number;
  perPage: number;
}
