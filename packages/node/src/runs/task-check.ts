/**
 * What a node checks in a task before it does anything with it (docs/security.md, "The node survives any task").
 * Everything an open result carries comes from the server but was written by a researcher or an algorithm: it is
 * checked here, and a task that fails a check ends as a finished run whose log says why, never as an exception.
 */
import { MAX_TASK_DATABASES, imageReferenceProblem } from '@federa/common';

import { refId, type WireResultWithTask } from '../server-client/wire.js';
import { RunStatus, type RunStatusValue } from './run-status.js';

/** Longest `database` label the node looks up (labels are short names in the node configuration). */
export const MAX_DATABASE_LABEL_LENGTH = 256;
/** Largest task input (its text as the server sends it) the node accepts: 256 MiB. */
export const MAX_INPUT_CHARS = 256 * 1024 * 1024;

export interface TaskRefusal {
  readonly status: RunStatusValue;
  /** For the run's log and the node's log line: what is wrong, in words for a researcher. */
  readonly reason: string;
}

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/** The ids a run needs to be reported at all; undefined when the item cannot even be reported. */
export function runIds(item: unknown): { resultId: number; taskId: number; runId: number } | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const { id, task } = item as { id?: unknown; task?: unknown };
  if (!isId(id) || typeof task !== 'object' || task === null) return undefined;
  const { id: taskId, run_id: runId } = task as { id?: unknown; run_id?: unknown };
  return { resultId: id, taskId: isId(taskId) ? taskId : 0, runId: isId(runId) ? runId : 0 };
}

/** Why this node must not run `item`, or undefined when it may try. */
export function checkTask(item: WireResultWithTask, collaborationId: number): TaskRefusal | undefined {
  const fail = (reason: string): TaskRefusal => ({ status: RunStatus.failed, reason });
  const task = item.task as Partial<WireResultWithTask['task']>;
  if (!isId(task.id)) return fail(`the task has no valid id (${JSON.stringify(task.id)})`);
  if (!isId(task.run_id)) return fail(`the task has no valid run id (${JSON.stringify(task.run_id)})`);
  const collaboration = refId(task.collaboration ?? undefined);
  if (collaboration !== undefined && collaboration !== collaborationId)
    return {
      status: RunStatus.notAllowed,
      reason: `the task belongs to collaboration ${String(collaboration)}, this node serves collaboration ${collaborationId}`,
    };
  if (!isId(task.initiator))
    return fail(`the task has no valid initiating organization (${JSON.stringify(task.initiator)})`);
  if (task.init_user !== undefined && task.init_user !== null && !isId(task.init_user))
    return fail(`the task has an invalid user id (${JSON.stringify(task.init_user)})`);
  const imageProblem = imageReferenceProblem(task.image);
  if (imageProblem) return fail(`the task's image ${quote(task.image)} ${imageProblem}`);
  const db: unknown = task.database;
  if (db !== undefined && db !== null) {
    if (typeof db !== 'string') return fail(`the task's database label is not a string (${typeof db})`);
    if (db.length > MAX_DATABASE_LABEL_LENGTH)
      return fail(`the task's database label is longer than ${MAX_DATABASE_LABEL_LENGTH} characters`);
  }
  const databasesProblem = checkDatabases((task as { databases?: unknown }).databases);
  if (databasesProblem) return fail(databasesProblem);
  const input: unknown = item.input;
  if (input !== undefined && input !== null) {
    if (typeof input !== 'string') return fail(`the task input is not text (${typeof input})`);
    if (input.length > MAX_INPUT_CHARS)
      return fail(`the task input is larger than this node accepts (${MAX_INPUT_CHARS} characters)`);
  }
  return undefined;
}

/** What is wrong with a task's `databases` list (`{label, type, parameters}` each), or undefined. */
function checkDatabases(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) return `the task's databases are not a list (${typeof value})`;
  if (value.length > MAX_TASK_DATABASES)
    return `the task asks for more than ${MAX_TASK_DATABASES} databases (${value.length})`;
  for (const [i, d] of value.entries()) {
    if (typeof d !== 'object' || d === null || Array.isArray(d))
      return `the task's database ${i} is not an object (${quote(d)})`;
    const { label, type, parameters } = d as Record<string, unknown>;
    if (typeof label !== 'string' || label === '' || label.length > MAX_DATABASE_LABEL_LENGTH)
      return `the task's database ${i} has no usable label (${quote(label)})`;
    if (type !== undefined && typeof type !== 'string')
      return `the task's database '${label}' has a type that is not text (${quote(type)})`;
    if (
      parameters !== undefined &&
      (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters))
    )
      return `the task's database '${label}' has parameters that are not an object (${quote(parameters)})`;
    // Parameters become environment variables, which cannot hold a NUL character.
    if (parameters !== undefined && JSON.stringify(parameters).includes('\\u0000'))
      return `the task's database '${label}' has a parameter holding a NUL character`;
  }
  return undefined;
}

/** A value from a task, quoted for a log line: JSON, cut to 80 characters. */
export function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
