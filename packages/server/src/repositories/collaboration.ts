import type { ExpressionBuilder, Kysely } from 'kysely';
import type { CollaborationRow, Database } from '../db/schema.js';
import type { IdQuery } from './listing.js';
import { idList } from '../db/id-list.js';
import { prepared } from '../db/prepared.js';

/** Data access for collaborations and their members (docs/api.md#collaborations). */

export async function findCollaboration(
  db: Kysely<Database>,
  id: number,
): Promise<CollaborationRow | undefined> {
  return db.selectFrom('collaboration').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The id of the collaboration named `name` (other than `exceptId`), if any. Names are unique. */
export async function collaborationIdByName(
  db: Kysely<Database>,
  name: string,
  exceptId?: number,
): Promise<number | undefined> {
  let q = db.selectFrom('collaboration').select('id').where('name', '=', name);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst())?.id;
}

/** Ids of the member organizations of a collaboration, ascending. */
export async function memberIds(db: Kysely<Database>, collaborationId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('member')
    .select('organization_id')
    .where('collaboration_id', '=', collaborationId)
    .orderBy('organization_id')
    .execute();
  return rows.map((r) => r.organization_id);
}

/** Creates a collaboration with its members in one transaction; returns its id. */
export async function createCollaboration(
  db: Kysely<Database>,
  values: { name: string; encrypted: boolean; organizationIds: readonly number[] },
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('collaboration')
      .values({ name: values.name, encrypted: values.encrypted ? 1 : 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await insertMembers(trx, row.id, values.organizationIds);
    return row.id;
  });
}

/** Adds these organizations to a collaboration since now (within the caller's transaction). */
export async function insertMembers(
  db: Kysely<Database>,
  collaborationId: number,
  organizationIds: readonly number[],
): Promise<void> {
  const ids = [...new Set(organizationIds)];
  if (ids.length === 0) return;
  const since = await lastTaskId(db);
  await db
    .insertInto('member')
    .values(
      ids.map((organization_id) => ({
        collaboration_id: collaborationId,
        organization_id,
        since_task_id: since,
      })),
    )
    // A member already is one, kept with its `since_task_id`: also when another request adds it at the same moment
    // (on PostgreSQL both may find it absent; the second insert then does nothing).
    .onConflict((oc) => oc.columns(['collaboration_id', 'organization_id']).doNothing())
    .execute();
}

/**
 * The highest task id so far: an organization joining now sees the results of later tasks only
 * (docs/security.md, "Results only for members at posting time").
 */
export async function lastTaskId(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('task')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  return Number(row?.id ?? 0);
}

/** Updates a collaboration; `organizationIds` replaces the whole member list. One transaction. */
export async function updateCollaboration(
  db: Kysely<Database>,
  id: number,
  values: { name?: string; encrypted?: boolean; organizationIds?: readonly number[] },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const set: { name?: string; encrypted?: number } = {};
    if (values.name !== undefined) set.name = values.name;
    if (values.encrypted !== undefined) set.encrypted = values.encrypted ? 1 : 0;
    if (Object.keys(set).length > 0)
      await trx.updateTable('collaboration').set(set).where('id', '=', id).execute();
    if (values.organizationIds !== undefined) {
      // Members that stay keep their membership (and so the tasks whose results they see); only the changes apply.
      const wanted = [...new Set(values.organizationIds)];
      const current = (
        await trx.selectFrom('member').select('organization_id').where('collaboration_id', '=', id).execute()
      ).map((m) => m.organization_id);
      const gone = current.filter((o) => !wanted.includes(o));
      if (gone.length > 0)
        await trx
          .deleteFrom('member')
          .where('collaboration_id', '=', id)
          .where('organization_id', 'in', gone)
          .execute();
      await insertMembers(
        trx,
        id,
        wanted.filter((o) => !current.includes(o)),
      );
    }
  });
}

/**
 * Deletes a collaboration and its memberships. Its nodes and tasks stay, with their collaboration link cleared
 * (docs/api.md#collaborations).
 */
export async function deleteCollaboration(db: Kysely<Database>, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Its studies go with it (a study is part of its collaboration); their tasks stay, detached like the others.
    const studies = trx.selectFrom('study').select('study.id').where('study.collaboration_id', '=', id);
    await trx.updateTable('task').set({ study_id: null }).where('study_id', 'in', studies).execute();
    await trx.deleteFrom('study_member').where('study_id', 'in', studies).execute();
    await trx.deleteFrom('study').where('collaboration_id', '=', id).execute();
    await trx.deleteFrom('member').where('collaboration_id', '=', id).execute();
    await trx
      .updateTable('node')
      .set({ collaboration_id: null })
      .where('collaboration_id', '=', id)
      .execute();
    await trx
      .updateTable('task')
      .set({ collaboration_id: null })
      .where('collaboration_id', '=', id)
      .execute();
    await trx.deleteFrom('collaboration').where('id', '=', id).execute();
  });
}

/** Adds an organization to a collaboration (nothing happens when it is a member already). */
export async function addMember(
  db: Kysely<Database>,
  collaborationId: number,
  organizationId: number,
): Promise<void> {
  await insertMembers(db, collaborationId, [organizationId]);
}

export async function removeMember(
  db: Kysely<Database>,
  collaborationId: number,
  organizationId: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('member')
      .where('collaboration_id', '=', collaborationId)
      .where('organization_id', '=', organizationId)
      .execute();
    // It leaves the collaboration's studies too.
    await trx
      .deleteFrom('study_member')
      .where('organization_id', '=', organizationId)
      .where('study_id', 'in', (eb) =>
        eb.selectFrom('study').select('study.id').where('study.collaboration_id', '=', collaborationId),
      )
      .execute();
  });
}

type CollaborationExpression = ExpressionBuilder<Database & { c: Database['collaboration'] }, 'c'>;

/** The ids of a collaboration's members, nodes or tasks as an id list (db/id-list.ts). */
const memberIdList = (eb: CollaborationExpression) =>
  eb
    .selectFrom('member')
    .select((sub) => idList(sub.ref('member.organization_id')).as('ids'))
    .whereRef('member.collaboration_id', '=', 'c.id')
    .as('organization_ids');
const nodeIdList = (eb: CollaborationExpression) =>
  eb
    .selectFrom('node')
    .select((sub) => idList(sub.ref('node.id')).as('ids'))
    .whereRef('node.collaboration_id', '=', 'c.id')
    .as('node_ids');
const taskIdList = (eb: CollaborationExpression, after: number) =>
  eb
    .selectFrom('task')
    .select((sub) => idList(sub.ref('task.id')).as('ids'))
    .whereRef('task.collaboration_id', '=', 'c.id')
    .where('task.id', '>', after)
    .as('task_ids');
/** The version and count of a collaboration's set of tasks (migration 0018); null before its first task. */
const taskSet = (eb: CollaborationExpression) =>
  [
    eb
      .selectFrom('task_count')
      .select('task_count.version')
      .whereRef('task_count.collaboration_id', '=', 'c.id')
      .as('task_version'),
    eb
      .selectFrom('task_count')
      .select('task_count.n')
      .whereRef('task_count.collaboration_id', '=', 'c.id')
      .as('task_n'),
  ] as const;

/**
 * Collaboration rows by id with the ids of their member organizations, nodes and tasks as id lists
 * (db/id-list.ts), in one query: a collaboration with thousands of tasks gives one row, not one per task.
 */
export const collaborationRows = prepared((db, ids: readonly number[]) =>
  db
    .selectFrom('collaboration as c')
    .selectAll('c')
    .select((eb) => [memberIdList(eb), nodeIdList(eb), taskIdList(eb, 0)])
    .where('c.id', 'in', ids),
);

/**
 * One collaboration's row with its members and nodes as id lists, and its set of tasks as its version and count
 * (migration 0018): what its answer shows, read without the list that grows with every task
 * (serializers/collaboration.ts).
 */
export const collaborationHead = prepared((db, id: number) =>
  db
    .selectFrom('collaboration as c')
    .selectAll('c')
    .select((eb) => [memberIdList(eb), nodeIdList(eb), ...taskSet(eb)])
    .where('c.id', '=', id),
);

/**
 * {@link collaborationHead} with the ids of the collaboration's tasks above `after` (0: all of them), read at the
 * same moment as the version and count they go with.
 */
export const collaborationWithTasksAfter = prepared((db, id: number, after: number) =>
  db
    .selectFrom('collaboration as c')
    .selectAll('c')
    .select((eb) => [memberIdList(eb), nodeIdList(eb), taskIdList(eb, after), ...taskSet(eb)])
    .where('c.id', '=', id),
);

/** The filters of `GET /collaboration`; `name` is an SQL LIKE pattern, `encrypted` 1 or 0. */
export interface CollaborationFilter {
  organization_id?: number | undefined;
  name?: string | undefined;
  encrypted?: number | undefined;
  /** The collaboration a linked store serves (none for a store of all collaborations). */
  algorithm_store_id?: number | undefined;
}

/** The ids of the collaborations matching `filter` (with `organization_id`: those it is a member of), ascending. */
export function collaborationIds(db: Kysely<Database>, filter: CollaborationFilter): IdQuery {
  let ids = db.selectFrom('collaboration').select('collaboration.id as id').orderBy('collaboration.id');
  const organizationId = filter.organization_id;
  if (organizationId !== undefined) {
    ids = ids.where('collaboration.id', 'in', (eb) =>
      eb
        .selectFrom('member')
        .select('member.collaboration_id')
        .where('member.organization_id', '=', organizationId),
    );
  }
  if (filter.name !== undefined) ids = ids.where('collaboration.name', 'like', filter.name);
  if (filter.encrypted !== undefined) ids = ids.where('collaboration.encrypted', '=', filter.encrypted);
  const storeId = filter.algorithm_store_id;
  if (storeId !== undefined)
    ids = ids.where('collaboration.id', 'in', (eb) =>
      eb
        .selectFrom('algorithm_store')
        .select('algorithm_store.collaboration_id')
        .where('algorithm_store.id', '=', storeId),
    );
  return ids;
}

/** The ids of the member organizations of a collaboration as a listing, ascending. */
export function memberIdsListing(db: Kysely<Database>, collaborationId: number): IdQuery {
  return db
    .selectFrom('member')
    .select('member.organization_id as id')
    .where('member.collaboration_id', '=', collaborationId)
    .orderBy('member.organization_id');
}

/** The ids of the collaborations an organization is a member of, ascending. */
export async function collaborationIdsOfOrganization(
  db: Kysely<Database>,
  organizationId: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('member')
    .select('collaboration_id')
    .where('organization_id', '=', organizationId)
    .orderBy('collaboration_id')
    .execute();
  return rows.map((r) => r.collaboration_id);
}

/** The ids of every collaboration, ascending. */
export async function allCollaborationIds(db: Kysely<Database>): Promise<number[]> {
  const rows = await db.selectFrom('collaboration').select('id').orderBy('id').execute();
  return rows.map((c) => c.id);
}

/** Ids of the collaborations an organization is a member of (in no particular order). */
export async function collaborationsOf(db: Kysely<Database>, organizationId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('member')
    .select('collaboration_id')
    .where('organization_id', '=', organizationId)
    .execute();
  return rows.map((r) => r.collaboration_id);
}

/** Whether an organization is a member of a collaboration. */
export async function isMember(
  db: Kysely<Database>,
  organizationId: number,
  collaborationId: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('member')
    .select('organization_id')
    .where('organization_id', '=', organizationId)
    .where('collaboration_id', '=', collaborationId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Ids of organizations sharing at least one collaboration with the given one, itself included. */
export async function partnerOrganizations(db: Kysely<Database>, organizationId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('member as m')
    .innerJoin('member as mine', 'mine.collaboration_id', 'm.collaboration_id')
    .select('m.organization_id')
    .where('mine.organization_id', '=', organizationId)
    .distinct()
    .execute();
  return [...new Set([organizationId, ...rows.map((r) => r.organization_id)])];
}
