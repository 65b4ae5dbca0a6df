import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { idList, parseIdList } from '../db/id-list.js';
import { inOrder, type IdQuery } from './listing.js';

/** Data access for studies (vantage6 4.x; docs/vantage6-4.md#studies): subsets of a collaboration's organizations. */

export interface StudyRow {
  id: number;
  name: string;
  collaboration_id: number;
  organization_ids: number[];
}

/** The filters of `GET /study`; `name` is an SQL LIKE pattern. */
export interface StudyFilter {
  name?: string | undefined;
  collaboration_id?: number | undefined;
  organization_id?: number | undefined;
  /** Only studies of these collaborations (the caller's, without the rule to view all). */
  scope?: readonly number[] | undefined;
}

/** The ids of the studies matching `filter`, ascending. */
export function studyIds(db: Kysely<Database>, f: StudyFilter): IdQuery {
  let ids = db.selectFrom('study').select('study.id as id').orderBy('study.id');
  if (f.name !== undefined) ids = ids.where('study.name', 'like', f.name);
  if (f.collaboration_id !== undefined) ids = ids.where('study.collaboration_id', '=', f.collaboration_id);
  if (f.scope !== undefined) ids = ids.where('study.collaboration_id', 'in', f.scope.length ? f.scope : [-1]);
  const organizationId = f.organization_id;
  if (organizationId !== undefined)
    ids = ids.where('study.id', 'in', (eb) =>
      eb
        .selectFrom('study_member')
        .select('study_member.study_id')
        .where('study_member.organization_id', '=', organizationId),
    );
  return ids;
}

/** Studies by id with their members, in the order given. */
export async function loadStudyRows(db: Kysely<Database>, ids: readonly number[]): Promise<StudyRow[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('study as s')
    .select(['s.id', 's.name', 's.collaboration_id'])
    .select((eb) =>
      eb
        .selectFrom('study_member as m')
        .whereRef('m.study_id', '=', 's.id')
        .select((sub) => idList(sub.ref('m.organization_id')).as('ids'))
        .as('organization_ids'),
    )
    .where('s.id', 'in', ids)
    .execute();
  return inOrder(
    ids,
    rows.map((r) => ({
      id: r.id,
      name: r.name,
      collaboration_id: r.collaboration_id,
      organization_ids: parseIdList(r.organization_ids),
    })),
  );
}

export async function studyIdByName(
  db: Kysely<Database>,
  name: string,
  except?: number,
): Promise<number | undefined> {
  let q = db.selectFrom('study').select('id').where('name', '=', name);
  if (except !== undefined) q = q.where('id', '!=', except);
  return (await q.executeTakeFirst())?.id;
}

export async function findStudy(
  db: Kysely<Database>,
  id: number,
): Promise<{ id: number; name: string; collaboration_id: number } | undefined> {
  return db
    .selectFrom('study')
    .select(['id', 'name', 'collaboration_id'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The members of a study. */
export async function studyMemberIds(db: Kysely<Database>, studyId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('study_member')
    .select('organization_id')
    .where('study_id', '=', studyId)
    .orderBy('organization_id')
    .execute();
  return rows.map((r) => r.organization_id);
}

export async function createStudy(
  db: Kysely<Database>,
  values: { name: string; collaboration_id: number; organizationIds: readonly number[] },
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('study')
      .values({ name: values.name, collaboration_id: values.collaboration_id })
      .returning('id')
      .executeTakeFirstOrThrow();
    await setStudyMembers(trx, row.id, values.organizationIds);
    return row.id;
  });
}

/** Renames a study and/or replaces its members. */
export async function updateStudy(
  db: Kysely<Database>,
  id: number,
  changes: { name?: string; organizationIds?: readonly number[] },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (changes.name !== undefined)
      await trx.updateTable('study').set({ name: changes.name }).where('id', '=', id).execute();
    if (changes.organizationIds !== undefined) await setStudyMembers(trx, id, changes.organizationIds);
  });
}

async function setStudyMembers(
  db: Kysely<Database>,
  id: number,
  organizationIds: readonly number[],
): Promise<void> {
  await db.deleteFrom('study_member').where('study_id', '=', id).execute();
  const unique = [...new Set(organizationIds)];
  if (unique.length > 0)
    await db
      .insertInto('study_member')
      .values(unique.map((organization_id) => ({ study_id: id, organization_id })))
      .execute();
}

export async function addStudyMember(
  db: Kysely<Database>,
  id: number,
  organizationId: number,
): Promise<void> {
  if ((await studyMemberIds(db, id)).includes(organizationId)) return;
  await db.insertInto('study_member').values({ study_id: id, organization_id: organizationId }).execute();
}

export async function removeStudyMember(
  db: Kysely<Database>,
  id: number,
  organizationId: number,
): Promise<void> {
  await db
    .deleteFrom('study_member')
    .where('study_id', '=', id)
    .where('organization_id', '=', organizationId)
    .execute();
}

/** Removes a study; its tasks stay, no longer scoped to it. */
export async function deleteStudy(db: Kysely<Database>, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('task').set({ study_id: null }).where('study_id', '=', id).execute();
    await trx.deleteFrom('study_member').where('study_id', '=', id).execute();
    await trx.deleteFrom('study').where('id', '=', id).execute();
  });
}
