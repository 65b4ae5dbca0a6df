import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** What refers to an organization and goes with it when it is deleted with its dependents (vantage6 4.x). */
export interface OrganizationDependents {
  /** Its runs: the results addressed to it, in tasks of any organization. */
  runs: number[];
  /** The tasks it created. */
  tasks: number[];
  nodes: number[];
  users: number[];
  roles: number[];
}

const ids = (rows: { id: number }[]): number[] => rows.map((r) => r.id);

export async function organizationDependents(
  db: Kysely<Database>,
  organizationId: number,
): Promise<OrganizationDependents> {
  const where = <T extends 'result' | 'node' | 'user' | 'role'>(table: T) =>
    db
      .selectFrom(table as 'result')
      .select('id')
      .where('organization_id', '=', organizationId)
      .orderBy('id');
  return {
    runs: ids(await where('result').execute()),
    tasks: ids(
      await db
        .selectFrom('task')
        .select('id')
        .where('initiator_id', '=', organizationId)
        .orderBy('id')
        .execute(),
    ),
    nodes: ids(await where('node').execute()),
    users: ids(await where('user').execute()),
    roles: ids(await where('role').execute()),
  };
}

/** Deletes runs (results) with their ports; returns those deleted, for the result store to give up their outputs. */
export async function deleteRuns(db: Kysely<Database>, runIds: readonly number[]): Promise<number[]> {
  if (runIds.length === 0) return [];
  return db.transaction().execute(async (trx) => {
    const found = ids(await trx.selectFrom('result').select('id').where('id', 'in', runIds).execute());
    if (found.length === 0) return [];
    await trx.deleteFrom('port').where('result_id', 'in', found).execute();
    await trx.deleteFrom('result').where('id', 'in', found).execute();
    return found;
  });
}

/**
 * Deletes an organization that nothing refers to any more (its dependents are gone): it leaves its collaborations
 * and studies, then its row goes. Refuses (false) when something still refers to it, so no row is left pointing
 * at an organization that is not there.
 */
export async function deleteBareOrganization(db: Kysely<Database>, organizationId: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const left = await organizationDependents(trx, organizationId);
    if (Object.values(left).some((list) => list.length > 0)) return false;
    await trx.deleteFrom('study_member').where('organization_id', '=', organizationId).execute();
    await trx.deleteFrom('member').where('organization_id', '=', organizationId).execute();
    await trx.deleteFrom('organization').where('id', '=', organizationId).execute();
    return true;
  });
}
