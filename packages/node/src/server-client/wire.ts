/**
 * The parts of the server's JSON the node reads (docs/api.md#resources): the shapes the server serializes with, from
 * `@federa/common`. The node still reads every answer as untrusted (task-check.ts).
 */
import type { Collaboration, Node, Organization, Result, ResultWithTask, Task } from '@federa/common';

export { listOf, refId } from '@federa/common';

export type WireTask = Task;
/** A result in "result with task" form (`include=task`). */
export type WireResultWithTask = ResultWithTask;
export type WireResult = Result;
export type WireNode = Node;
export type WireOrganization = Organization;
export type WireCollaboration = Collaboration;

/** Node-local wall-clock time as 3.x nodes send it: `YYYY-MM-DDTHH:MM:SS.ffffff`. */
export function localTimestamp(date = new Date()): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())}T${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}.${p(date.getMilliseconds(), 3)}000`;
}
