import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { DialectName } from '../db/uri.js';
import { dialectSql } from '../db/dialects/sql.js';
import { preparedListing, type PreparedListing } from './listing.js';
import type { Caller } from '../auth/caller.js';
import { callerCollaborations } from '../auth/scope.js';
import type { RunChanges, StoredOutput } from '../runs/run-update.js';
import { OPEN_RUN_STATUSES, RunStatus } from '@federa/common';
import { nowStored } from '../db/stored-time.js';

/**
 * Data access for results (algorithm runs): who may see them, and the one row a route works on.
 */

/** The output and log of a run (what a finished run's report is compared with). */
export interface RunOutput {
  result: string | null;
  log: string | null;
  stored: StoredOutput | null;
}

const OUTPUT_COLUMNS = ['result.result', 'result.log', 'result.result_size', 'result.result_sha256'] as const;

const outputOf = (row: {
  result: string | null;
  log: string | null;
  result_size: number | string | null;
  result_sha256: string | null;
}): RunOutput => ({
  result: row.result,
  log: row.log,
  stored: row.result_sha256 === null ? null : { sha256: row.result_sha256, size: Number(row.result_size) },
});

export async function findRunOutput(db: Kysely<Database>, id: number): Promise<RunOutput> {
  return outputOf(
    await db
      .selectFrom('result')
      .select(OUTPUT_COLUMNS)
      .where('result.id', '=', id)
      .executeTakeFirstOrThrow(),
  );
}

/** The SHA-256 of the stored output each of the runs `ids` names (`result_stored`); a run naming none is absent. */
export async function namedOutputs(
  db: Kysely<Database>,
  ids: readonly number[],
): Promise<Map<number, string>> {
  const named = new Map<number, string>();
  // In slices: a database takes a bounded number of parameters per statement.
  for (let at = 0; at < ids.length; at += 500) {
    const rows = await db
      .selectFrom('result')
      .select(['id', 'result_sha256'])
      .where('id', 'in', ids.slice(at, at + 500))
      .where('result_sha256', 'is not', null)
      .execute();
    for (const row of rows) if (row.result_sha256 !== null) named.set(row.id, row.result_sha256);
  }
  return named;
}

/**
 * The highest result id this database has ever given (deleted runs included), 0 when none: an id above it belongs
 * to another database.
 */
export async function highestResultIdGiven(db: Kysely<Database>, dialect: DialectName): Promise<number> {
  const given = await dialectSql(dialect).highestResultIdGiven().execute(db);
  const highest = await db
    .selectFrom('result')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  // Rows written with their own ids (an import) may not have moved the sequence.
  return Math.max(Number(given.rows[0]?.id ?? 0), Number(highest?.id ?? 0));
}

/**
 * For each of the runs `ids` that exists: whether its node may still upload an output (`reportable`: the run is
 * open; a finished or killed run takes none, docs/large-results.md), and the checksum of the output its report
 * named (`named`, null when none).
 */
export async function outputOwners(
  db: Kysely<Database>,
  ids: readonly number[],
): Promise<Map<number, { reportable: boolean; named: string | null }>> {
  const owners = new Map<number, { reportable: boolean; named: string | null }>();
  for (let at = 0; at < ids.length; at += 500) {
    const rows = await db
      .selectFrom('result')
      .select((eb) => [
        'id',
        'result_sha256',
        // Not the output itself: an inline one may be large.
        eb
          .and([
            eb('finished_at', 'is', null),
            eb.or([eb('status', 'is', null), eb('status', 'in', [...OPEN_RUN_STATUSES])]),
          ])
          .as('reportable'),
      ])
      .where('id', 'in', ids.slice(at, at + 500))
      .execute();
    for (const row of rows)
      owners.set(row.id, { reportable: Boolean(Number(row.reportable)), named: row.result_sha256 });
  }
  return owners;
}

/**
 * Writes a node's report (runs/run-update.ts) over the state it was planned from: an open run only while still
 * open (a kill that finished it meanwhile wins), a finished one only while it has neither output nor log. Returns
 * whether it was written.
 */
export async function writeRunChanges(
  db: Kysely<Database>,
  id: number,
  changes: RunChanges,
  wasOpen: boolean,
): Promise<boolean> {
  const { stored, ...columns } = changes;
  const written = await db
    .updateTable('result')
    .set({
      ...columns,
      ...(stored !== undefined
        ? { result_sha256: stored?.sha256 ?? null, result_size: stored?.size ?? null }
        : {}),
    })
    .where('id', '=', id)
    .where((eb) =>
      wasOpen
        ? eb('finished_at', 'is', null)
        : eb.and([eb('result', 'is', null), eb('log', 'is', null), eb('result_sha256', 'is', null)]),
    )
    .executeTakeFirst();
  return Number(written.numUpdatedRows) > 0;
}

/**
 * `cancel_on_failure` (docs/run-statuses.md#cancel-on-failure): when the task has it, its runs other than `failedId`
 * that are still `pending` become `cancelled`, finished now. Returns them (id and organization), by id; a run a node
 * took on meanwhile is not pending any more and is left alone.
 */
export async function cancelPendingSiblings(
  db: Kysely<Database>,
  taskId: number,
  failedId: number,
): Promise<{ id: number; organization_id: number }[]> {
  const task = await db
    .selectFrom('task')
    .select('cancel_on_failure')
    .where('id', '=', taskId)
    .executeTakeFirst();
  if (!task?.cancel_on_failure) return [];
  const cancelled = await db
    .updateTable('result')
    .set({ status: RunStatus.cancelled, finished_at: nowStored() })
    .where('task_id', '=', taskId)
    .where('id', '!=', failedId)
    .where('status', '=', RunStatus.pending)
    .where('finished_at', 'is', null)
    .returning(['id', 'organization_id'])
    .execute();
  return cancelled.sort((a, b) => a.id - b.id);
}

/** A result row with the collaboration of its task. */
export interface ResultScopeRow {
  id: number;
  task_id: number;
  organization_id: number;
  finished_at: string | null;
  started_at: string | null;
  status: string | null;
  collaboration_id: number | null;
  /** The organization that posted the task. */
  initiator_id: number;
}

const resultRow = (db: Kysely<Database>, id: number) =>
  db
    .selectFrom('result')
    .innerJoin('task', 'task.id', 'result.task_id')
    .select([
      'result.id',
      'result.task_id',
      'result.organization_id',
      'result.finished_at',
      'result.started_at',
      'result.status',
      'task.collaboration_id',
      'task.initiator_id',
    ])
    .where('result.id', '=', id);

export async function findResult(db: Kysely<Database>, id: number): Promise<ResultScopeRow | undefined> {
  return resultRow(db, id).executeTakeFirst();
}

/** {@link findResult} with {@link findRunOutput} as `output`, in one query (a node's report needs both). */
export async function findResultWithOutput(
  db: Kysely<Database>,
  id: number,
): Promise<(ResultScopeRow & { output: RunOutput }) | undefined> {
  const found = await resultRow(db, id).select(OUTPUT_COLUMNS).executeTakeFirst();
  if (!found) return undefined;
  const { result, log, result_size, result_sha256, ...row } = found;
  return { ...row, output: outputOf({ result, log, result_size, result_sha256 }) };
}

/**
 * The collaborations whose results a caller may see.
 *
 * Results are visible only to callers whose organization is a member of the task's collaboration (a node or a
 * container: its own collaboration), whatever rule they hold. This deliberately narrows vantage6's
 * `result.v_glo`, which let a superuser read results of any collaboration: the seed requires that a superuser
 * can never view results of a collaboration their organization is not part of. With this narrowing
 * `result.v_glo` and `result.v_org` grant the same view; the policy table still requires one of them.
 */
export async function resultCollaborations(db: Kysely<Database>, caller: Caller): Promise<number[]> {
  if (!caller.rules.has('result.v_glo') && !caller.rules.has('result.v_org')) return [];
  return callerCollaborations(db, caller);
}

/**
 * A condition on a query that joins `task`: the caller's organization was a member of the task's collaboration when
 * the task was posted (docs/security.md, "Results only for members at posting time"). An organization added to a
 * collaboration later sees the results of tasks posted after it joined, never those of earlier tasks.
 */
export function postedWhileMember(organizationId: number) {
  return (eb: ExpressionBuilder<Database, 'task'>) =>
    eb.exists(
      eb
        .selectFrom('member')
        .select('member.organization_id')
        .whereRef('member.collaboration_id', '=', 'task.collaboration_id')
        .where('member.organization_id', '=', organizationId)
        .whereRef('member.since_task_id', '<', 'task.id'),
    );
}

/** The ids among `taskIds` whose results the caller may see: see {@link resultCollaborations} and {@link postedWhileMember}. */
export async function tasksWithVisibleResults(
  db: Kysely<Database>,
  caller: Caller,
  taskIds: readonly number[],
): Promise<Set<number>> {
  if (taskIds.length === 0) return new Set();
  const visible = await resultCollaborations(db, caller);
  if (visible.length === 0) return new Set();
  const rows = await db
    .selectFrom('task')
    .select('task.id')
    .where('task.id', 'in', taskIds)
    .where('task.collaboration_id', 'in', visible)
    .where(postedWhileMember(caller.organizationId))
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** The filters of `GET /result`. */
export interface ResultFilter {
  task_id?: number | undefined;
  organization_id?: number | undefined;
  /** Results addressed to this node (its organization's, in its collaboration); null matches nothing. */
  node?: { organization_id: number; collaboration_id: number | null } | null | undefined;
  /** Only runs not finished yet. */
  open?: boolean;
  /** Only runs with algorithm ports. */
  withPorts?: boolean;
  /** Time bounds, in the stored form. */
  ranges?: { column: 'assigned_at' | 'started_at' | 'finished_at'; op: '>=' | '<='; value: string }[];
}

const RANGE_COLUMNS = ['assigned_at', 'started_at', 'finished_at'] as const;
const rangeArg = (column: string, op: '>=' | '<='): string => `${column}${op === '>=' ? '_from' : '_till'}`;

type ResultListArgs = Record<string, number | string | readonly number[] | undefined> & {
  visible: readonly number[];
  organization: number;
};

const resultListing = preparedListing((db, f: ResultListArgs) => {
  let ids = db
    .selectFrom('result')
    .innerJoin('task', 'task.id', 'result.task_id')
    .select('result.id')
    .where('task.collaboration_id', 'in', f.visible)
    .where(postedWhileMember(f.organization))
    .orderBy('result.id', 'desc');
  if (f.task_id !== undefined) ids = ids.where('result.task_id', '=', f.task_id as number);
  if (f.organization_id !== undefined)
    ids = ids.where('result.organization_id', '=', f.organization_id as number);
  if (f.no_node !== undefined) ids = ids.where('result.id', '<', 0);
  if (f.node_organization !== undefined && f.node_collaboration !== undefined)
    ids = ids
      .where('result.organization_id', '=', f.node_organization as number)
      .where('task.collaboration_id', '=', f.node_collaboration as number);
  if (f.open !== undefined) ids = ids.where('result.finished_at', 'is', null);
  if (f.with_ports !== undefined) {
    ids = ids.where((eb) =>
      eb.exists(eb.selectFrom('port').select('port.id').whereRef('port.result_id', '=', 'result.id')),
    );
  }
  for (const column of RANGE_COLUMNS)
    for (const op of ['>=', '<='] as const) {
      const value = f[rangeArg(column, op)];
      if (value !== undefined) ids = ids.where(`result.${column}`, op, value as string);
    }
  return ids;
});

/**
 * The ids of the results in the collaborations `visible` that were posted while `organizationId` was a member
 * (see {@link postedWhileMember}) and match `filter`, newest first.
 */
export function visibleResultIds(
  db: Kysely<Database>,
  visible: readonly number[],
  organizationId: number,
  filter: ResultFilter,
): PreparedListing {
  const node = filter.node;
  const args: ResultListArgs = {
    // The ids are positive: an empty list of collaborations matches nothing.
    visible: visible.length ? visible : [-1],
    organization: organizationId,
    task_id: filter.task_id,
    organization_id: filter.organization_id,
    no_node: node === null || (node !== undefined && node.collaboration_id === null) ? 1 : undefined,
    node_organization: node?.collaboration_id != null ? node.organization_id : undefined,
    node_collaboration: node?.collaboration_id ?? undefined,
    open: filter.open ? 1 : undefined,
    with_ports: filter.withPorts ? 1 : undefined,
  };
  for (const { column, op, value } of filter.ranges ?? []) args[rangeArg(column, op)] = value;
  return resultListing(db, args);
}

/** A run with the task it belongs to (for the socket's relays of run events). */
export async function runWithTask(
  db: Kysely<Database>,
  resultId: number,
): Promise<
  | {
      id: number;
      organization_id: number;
      task_id: number;
      run_id: number;
      parent_id: number | null;
      collaboration_id: number | null;
      initiator_id: number;
    }
  | undefined
> {
  return db
    .selectFrom('result')
    .innerJoin('task', 'task.id', 'result.task_id')
    .select([
      'result.id',
      'result.organization_id',
      'task.id as task_id',
      'task.run_id',
      'task.parent_id',
      'task.collaboration_id',
      'task.initiator_id',
    ])
    .where('result.id', '=', resultId)
    .executeTakeFirst();
}
