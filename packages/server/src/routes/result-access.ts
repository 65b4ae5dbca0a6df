/**
 * Who may read a result and who may report it, in one place for every route of a result (`/result/{id}` and
 * `/result/{id}/output`): reading the output is exactly reading the result.
 */
import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.js';
import type { Database } from '../db/schema.js';
import { forbidden, notFound } from '../errors.js';
import {
  findResult,
  findResultWithOutput,
  tasksWithVisibleResults,
  type ResultScopeRow,
  type RunOutput,
} from '../repositories/result.js';

/** The result `id` when the caller may view it (docs/security.md); else 404 or 401. */
export async function findVisibleResult(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
): Promise<ResultScopeRow> {
  const result = await findResult(db, id);
  if (!result) throw notFound('Result', id);
  if (!(await tasksWithVisibleResults(db, caller, [result.task_id])).has(result.task_id)) {
    throw forbidden(
      `You cannot view result ${result.id}: only organizations that were members of its task's collaboration when the task was posted can.`,
    );
  }
  return result;
}

/** The result `id` when the caller is the node it is addressed to; else 404 or 401. */
export async function findAddressedResult(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
): Promise<ResultScopeRow> {
  return addressedTo(caller, id, await findResult(db, id));
}

/** {@link findAddressedResult} with the run's output and log as `output` (a report is compared with them), in one query. */
export async function findAddressedResultWithOutput(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
): Promise<ResultScopeRow & { output: RunOutput }> {
  return addressedTo(caller, id, await findResultWithOutput(db, id));
}

function addressedTo<R extends ResultScopeRow>(caller: Caller, id: number, result: R | undefined): R {
  const node = caller.node;
  if (!node) throw forbidden('Only nodes can update results');
  if (!result) throw notFound('Result', id);
  if (result.organization_id !== node.organization_id || result.collaboration_id !== node.collaboration_id) {
    throw forbidden(
      `Result ${result.id} is not addressed to this node: only the node of organization ${result.organization_id} in its collaboration may update it.`,
    );
  }
  return result;
}
