import type { Kysely } from 'kysely';
import type { Database, PortRow } from '../db/schema.js';
import type { IdQuery } from './listing.js';

/** Data access for the VPN ports of algorithm runs (docs/api.md#ports-and-vpn). */

/** The filters of `GET /port`. */
export interface PortFilter {
  result_id?: number | undefined;
  task_id?: number | undefined;
  run_id?: number | undefined;
}

/** The ids of the ports in the collaborations `scope` (all when null) matching `filter`, newest first. */
export function portIds(db: Kysely<Database>, scope: readonly number[] | null, filter: PortFilter): IdQuery {
  let ids = db
    .selectFrom('port')
    .innerJoin('result', 'result.id', 'port.result_id')
    .innerJoin('task', 'task.id', 'result.task_id')
    .select('port.id')
    .orderBy('port.id', 'desc');
  if (scope !== null) ids = ids.where('task.collaboration_id', 'in', scope.length ? scope : [-1]);
  if (filter.result_id !== undefined) ids = ids.where('port.result_id', '=', filter.result_id);
  if (filter.task_id !== undefined) ids = ids.where('result.task_id', '=', filter.task_id);
  if (filter.run_id !== undefined) ids = ids.where('task.run_id', '=', filter.run_id);
  return ids;
}

/** A port with the collaboration of its task. */
export async function findPort(
  db: Kysely<Database>,
  id: number,
): Promise<{ id: number; collaboration_id: number | null } | undefined> {
  return db
    .selectFrom('port')
    .innerJoin('result', 'result.id', 'port.result_id')
    .innerJoin('task', 'task.id', 'result.task_id')
    .select(['port.id', 'task.collaboration_id'])
    .where('port.id', '=', id)
    .executeTakeFirst();
}

/** Port rows by id (in any order). */
export async function portRows(db: Kysely<Database>, ids: readonly number[]): Promise<PortRow[]> {
  return db.selectFrom('port').selectAll().where('id', 'in', ids).execute();
}

/** Registers a port of a result; returns its id. */
export async function insertPort(
  db: Kysely<Database>,
  values: { result_id: number; port: number; label: string | null },
): Promise<number> {
  const row = await db.insertInto('port').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Deletes the ports of a result; returns how many there were. */
export async function deletePortsOfResult(db: Kysely<Database>, resultId: number): Promise<number> {
  const deleted = await db.deleteFrom('port').where('result_id', '=', resultId).executeTakeFirst();
  return Number(deleted.numDeletedRows);
}

/** Where an algorithm run listens: its port, label and node address (docs/vpn.md). */
export interface AlgorithmAddress {
  port: number;
  label: string | null;
  ip: string | null;
  organization_id: number;
  task_id: number;
  parent_id: number | null;
}

/** The ports of the runs of these tasks in a collaboration, optionally only those with `label`, in order. */
export async function algorithmAddresses(
  db: Kysely<Database>,
  taskIds: readonly number[],
  collaborationId: number,
  label?: string,
): Promise<AlgorithmAddress[]> {
  let rows = db
    .selectFrom('port')
    .innerJoin('result', 'result.id', 'port.result_id')
    .innerJoin('task', 'task.id', 'result.task_id')
    .leftJoin('node', (join) =>
      join
        .onRef('node.organization_id', '=', 'result.organization_id')
        .onRef('node.collaboration_id', '=', 'task.collaboration_id'),
    )
    .select([
      'port.port',
      'port.label',
      'node.ip',
      'result.organization_id',
      'result.task_id',
      'task.parent_id',
    ])
    .where('result.task_id', 'in', taskIds)
    .where('task.collaboration_id', '=', collaborationId)
    .orderBy('port.id');
  if (label !== undefined) rows = rows.where('port.label', '=', label);
  return rows.execute();
}
