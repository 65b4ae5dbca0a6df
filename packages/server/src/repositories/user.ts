import type { Kysely } from 'kysely';
import type { Database, UserRow } from '../db/schema.js';
import type { IdQuery } from './listing.js';
import { idList } from '../db/id-list.js';
import { prepared } from '../db/prepared.js';

/** Data access for users. A user's id is the id of its `authenticatable` row (shared with nodes). */

export async function findUser(db: Kysely<Database>, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('user').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Whether another user than `exceptId` has this username. */
export async function usernameTaken(
  db: Kysely<Database>,
  username: string,
  exceptId?: number,
): Promise<boolean> {
  let q = db.selectFrom('user').select('id').where('username', '=', username);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/** Whether another user than `exceptId` has this e-mail address. */
export async function emailTaken(db: Kysely<Database>, email: string, exceptId?: number): Promise<boolean> {
  let q = db.selectFrom('user').select('id').where('email', '=', email);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

export async function organizationExists(db: Kysely<Database>, id: number): Promise<boolean> {
  return (
    (await db.selectFrom('organization').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
  );
}

export interface NewUser {
  username: string;
  firstname: string | null;
  lastname: string | null;
  email: string;
  passwordHash: string;
  organizationId: number;
  roleIds: readonly number[];
  ruleIds: readonly number[];
}

/** Inserts a user with its roles and direct rules in one transaction; returns the new id. */
export async function insertUser(db: Kysely<Database>, user: NewUser): Promise<number> {
  return db.transaction().execute((trx) => insertUserRows(trx, user));
}

/**
 * Inserts a user (its `authenticatable` row first: users and nodes share one id space), its roles and its direct
 * rules, within the caller's transaction. Used by the API, the start-up seeding and the fixture importer.
 */
export async function insertUserRows(trx: Kysely<Database>, user: NewUser): Promise<number> {
  const auth = await trx
    .insertInto('authenticatable')
    .values({ type: 'user' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('user')
    .values({
      id: auth.id,
      username: user.username,
      firstname: user.firstname,
      lastname: user.lastname,
      email: user.email,
      password: user.passwordHash,
      organization_id: user.organizationId,
      failed_login_attempts: 0,
    })
    .execute();
  await replaceUserRoles(trx, auth.id, user.roleIds);
  await replaceUserRules(trx, auth.id, user.ruleIds);
  return auth.id;
}

export async function replaceUserRoles(
  db: Kysely<Database>,
  userId: number,
  roleIds: readonly number[],
): Promise<void> {
  await db.deleteFrom('user_role').where('user_id', '=', userId).execute();
  const unique = [...new Set(roleIds)];
  if (unique.length)
    await db
      .insertInto('user_role')
      .values(unique.map((role_id) => ({ user_id: userId, role_id })))
      .execute();
}

export async function replaceUserRules(
  db: Kysely<Database>,
  userId: number,
  ruleIds: readonly number[],
): Promise<void> {
  await db.deleteFrom('user_rule').where('user_id', '=', userId).execute();
  const unique = [...new Set(ruleIds)];
  if (unique.length)
    await db
      .insertInto('user_rule')
      .values(unique.map((rule_id) => ({ user_id: userId, rule_id })))
      .execute();
}

/** Deletes a user, its role and rule assignments, its counted login failures and its authenticatable row; its tasks keep no creator. */
export async function deleteUser(db: Kysely<Database>, userId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('user_role').where('user_id', '=', userId).execute();
    await trx.deleteFrom('user_rule').where('user_id', '=', userId).execute();
    await trx.deleteFrom('login_failure').where('user_id', '=', userId).execute();
    await trx.updateTable('task').set({ init_user_id: null }).where('init_user_id', '=', userId).execute();
    await trx.deleteFrom('user').where('id', '=', userId).execute();
    await trx.deleteFrom('authenticatable').where('id', '=', userId).execute();
  });
}

/** User rows by id with the ids of their roles, direct rules and created tasks as id lists, in one query. */
export const userRows = prepared((db, ids: readonly number[]) =>
  db
    .selectFrom('user as u')
    .select([
      'u.id',
      'u.username',
      'u.firstname',
      'u.lastname',
      'u.email',
      'u.status',
      'u.last_seen',
      'u.organization_id',
    ])
    .select((eb) => [
      eb
        .selectFrom('user_role')
        .select((sub) => idList(sub.ref('user_role.role_id')).as('ids'))
        .whereRef('user_role.user_id', '=', 'u.id')
        .as('role_ids'),
      eb
        .selectFrom('user_rule')
        .select((sub) => idList(sub.ref('user_rule.rule_id')).as('ids'))
        .whereRef('user_rule.user_id', '=', 'u.id')
        .as('rule_ids'),
      eb
        .selectFrom('task')
        .select((sub) => idList(sub.ref('task.id')).as('ids'))
        .whereRef('task.init_user_id', '=', 'u.id')
        .as('task_ids'),
    ])
    .where('u.id', 'in', ids),
);

/** The filters of `GET /user`: SQL LIKE patterns on the names, times in the stored form. */
export interface UserFilter {
  username?: string | undefined;
  firstname?: string | undefined;
  lastname?: string | undefined;
  email?: string | undefined;
  organization_id?: number | undefined;
  last_seen_from?: string | undefined;
  last_seen_till?: string | undefined;
  role_id?: number | undefined;
  rule_id?: number | undefined;
}

/** The ids of the users of organization `scope` (all when null) matching `filter`, ascending. */
export function userIds(db: Kysely<Database>, scope: number | null, filter: UserFilter): IdQuery {
  let ids = db.selectFrom('user').select('user.id as id').orderBy('user.id');
  if (scope !== null) ids = ids.where('user.organization_id', '=', scope);
  for (const field of ['username', 'firstname', 'lastname', 'email'] as const) {
    const value = filter[field];
    if (value !== undefined) ids = ids.where(`user.${field}`, 'like', value);
  }
  if (filter.organization_id !== undefined)
    ids = ids.where('user.organization_id', '=', filter.organization_id);
  if (filter.last_seen_from !== undefined) ids = ids.where('user.last_seen', '>=', filter.last_seen_from);
  if (filter.last_seen_till !== undefined) ids = ids.where('user.last_seen', '<=', filter.last_seen_till);
  const roleId = filter.role_id;
  if (roleId !== undefined) {
    ids = ids.where('user.id', 'in', (eb) =>
      eb.selectFrom('user_role').select('user_role.user_id').where('user_role.role_id', '=', roleId),
    );
  }
  const ruleId = filter.rule_id;
  if (ruleId !== undefined) {
    ids = ids.where('user.id', 'in', (eb) =>
      eb.selectFrom('user_rule').select('user_rule.user_id').where('user_rule.rule_id', '=', ruleId),
    );
  }
  return ids;
}

/** Changes a user's names and e-mail address and, when given, replaces their roles and rules; one transaction. */
export async function updateUser(
  db: Kysely<Database>,
  userId: number,
  values: { username: string; email: string; firstname: string | null; lastname: string | null },
  roleIds: readonly number[] | null | undefined,
  ruleIds: readonly number[] | null | undefined,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('user').set(values).where('id', '=', userId).execute();
    if (roleIds) await replaceUserRoles(trx, userId, roleIds);
    if (ruleIds) await replaceUserRules(trx, userId, ruleIds);
  });
}
