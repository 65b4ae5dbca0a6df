import type { Kysely } from 'kysely';
import type { Database, RoleRow, UserRow } from '../db/schema.js';
import type { IdQuery } from './listing.js';
import type { Caller } from '../auth/caller.js';
import { RESERVED_ROLE_NAMES, describeRule, ruleKeyOf, type RuleKey } from '../auth/rules.js';
import { forbidden, notFound } from '../errors.js';

/**
 * Data access for roles and rules, and the "nobody grants what they lack" guard (docs/access-control.md#guards) that the
 * user and role routes share.
 */

export async function findRole(db: Kysely<Database>, id: number): Promise<RoleRow | undefined> {
  return db.selectFrom('role').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findRoles(db: Kysely<Database>, ids: readonly number[]): Promise<RoleRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('role')
    .selectAll()
    .where('id', 'in', [...ids])
    .orderBy('id')
    .execute();
}

/** Rule keys of the given rule ids; unknown ids are absent from the map. */
export async function ruleKeysById(
  db: Kysely<Database>,
  ids: readonly number[],
): Promise<Map<number, RuleKey>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('rule')
    .select(['id', 'name', 'operation', 'scope'])
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((r) => [r.id, ruleKeyOf(r)]));
}

/** The rule keys contained in the given roles, per role. */
export async function ruleKeysOfRoles(
  db: Kysely<Database>,
  roleIds: readonly number[],
): Promise<Map<number, RuleKey[]>> {
  const out = new Map<number, RuleKey[]>(roleIds.map((id) => [id, []]));
  if (roleIds.length === 0) return out;
  const rows = await db
    .selectFrom('role_rule')
    .innerJoin('rule', 'rule.id', 'role_rule.rule_id')
    .select(['role_rule.role_id', 'rule.name', 'rule.operation', 'rule.scope'])
    .where('role_rule.role_id', 'in', [...roleIds])
    .execute();
  for (const r of rows) out.get(r.role_id)?.push(ruleKeyOf(r));
  return out;
}

export async function ruleIdsOfRole(db: Kysely<Database>, roleId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('role_rule')
    .select('rule_id')
    .where('role_id', '=', roleId)
    .orderBy('rule_id')
    .execute();
  return rows.map((r) => r.rule_id);
}

/** Ids of the roles a user holds. */
export async function roleIdsOfUser(db: Kysely<Database>, userId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('user_role')
    .select('role_id')
    .where('user_id', '=', userId)
    .orderBy('role_id')
    .execute();
  return rows.map((r) => r.role_id);
}

/** Ids of the rules assigned to a user directly. */
export async function ruleIdsOfUser(db: Kysely<Database>, userId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('user_rule')
    .select('rule_id')
    .where('user_id', '=', userId)
    .orderBy('rule_id')
    .execute();
  return rows.map((r) => r.rule_id);
}

/** The default (built-in) roles: reserved name and no organization. */
export const isDefaultRole = (role: Pick<RoleRow, 'name' | 'organization_id'>): boolean =>
  role.organization_id === null && RESERVED_ROLE_NAMES.has(role.name);

/**
 * Refuses (401) when the caller lacks one of `keys`: a caller only grants, or takes away, rules they hold
 * themselves. The message names the first missing rule and says what it was needed for.
 */
export function requireHeld(caller: Caller, keys: Iterable<RuleKey>, purpose: string): void {
  for (const key of keys) {
    if (!caller.rules.has(key)) {
      throw forbidden(`You lack the rule '${describeRule(key)}' (${key}), so you cannot ${purpose}.`);
    }
  }
}

/** Rule ids that must all exist (404) and be held by the caller (401), e.g. the rules put in a role. */
export async function requireGrantableRules(
  db: Kysely<Database>,
  caller: Caller,
  ruleIds: readonly number[],
  purpose: string,
): Promise<void> {
  const keys = await ruleKeysById(db, ruleIds);
  const unknown = ruleIds.find((id) => !keys.has(id));
  if (unknown !== undefined) throw notFound('rule', unknown);
  requireHeld(caller, keys.values(), purpose);
}

export interface AssignmentChange {
  /** Ids assigned now. */
  current: readonly number[];
  /** Ids the user is to have. */
  wanted: readonly number[];
  /** Whether the caller changes their own assignments. */
  self: boolean;
}

/**
 * Guards a user's new set of roles: every wanted role exists (404); nobody changes their own roles, nor gives
 * or takes away a role containing a rule they lack (401); a role owned by an organization only goes to users of
 * that organization (401), roles without organization to anyone.
 */
export async function checkRoleAssignment(
  db: Kysely<Database>,
  caller: Caller,
  change: AssignmentChange & { organizationId: number },
): Promise<void> {
  const { current, wanted, self, organizationId } = change;
  const roles = new Map((await findRoles(db, [...wanted, ...current])).map((r) => [r.id, r]));
  const unknown = wanted.find((id) => !roles.has(id));
  if (unknown !== undefined) throw notFound('role', unknown);
  const added = wanted.filter((id) => !current.includes(id));
  const removed = current.filter((id) => !wanted.includes(id));
  if (self && (added.length > 0 || removed.length > 0)) {
    throw forbidden('You cannot change your own roles; ask another administrator.');
  }
  const contents = await ruleKeysOfRoles(db, [...added, ...removed]);
  const label = (id: number) => `role '${roles.get(id)?.name}' (id=${id}), which contains it`;
  for (const id of added) requireHeld(caller, contents.get(id) ?? [], `assign ${label(id)}`);
  for (const id of removed) requireHeld(caller, contents.get(id) ?? [], `take away ${label(id)}`);
  for (const id of wanted) {
    const role = roles.get(id);
    if (role && role.organization_id !== null && role.organization_id !== organizationId) {
      throw forbidden(
        `Role '${role.name}' (id=${role.id}) belongs to organization ${role.organization_id}; it cannot be given to a user of organization ${organizationId}.`,
      );
    }
  }
}

/**
 * Guards a user's new set of directly assigned rules: every wanted rule exists (404); nobody changes their own
 * rules, nor gives or takes away a rule they lack (401).
 */
export async function checkRuleAssignment(
  db: Kysely<Database>,
  caller: Caller,
  change: AssignmentChange,
): Promise<void> {
  const { current, wanted, self } = change;
  const keys = await ruleKeysById(db, [...wanted, ...current]);
  const unknown = wanted.find((id) => !keys.has(id));
  if (unknown !== undefined) throw notFound('rule', unknown);
  const added = wanted.filter((id) => !current.includes(id));
  const removed = current.filter((id) => !wanted.includes(id));
  if (self && (added.length > 0 || removed.length > 0)) {
    throw forbidden('You cannot change your own rules; ask another administrator.');
  }
  const keyOf = (id: number) => keys.get(id) ?? [];
  requireHeld(caller, added.flatMap(keyOf), 'assign it to a user');
  requireHeld(caller, removed.flatMap(keyOf), 'take it away from a user');
}

/** Role rows by id with their rule and user ids as (role, id) pairs, for the serializer. */
export async function roleRows(db: Kysely<Database>, ids: readonly number[]) {
  const [rows, rules, users] = await Promise.all([
    db.selectFrom('role').selectAll().where('id', 'in', ids).execute(),
    db
      .selectFrom('role_rule')
      .select(['role_id as k', 'rule_id as v'])
      .where('role_id', 'in', ids)
      .orderBy('rule_id')
      .execute(),
    db
      .selectFrom('user_role')
      .select(['role_id as k', 'user_id as v'])
      .where('role_id', 'in', ids)
      .orderBy('user_id')
      .execute(),
  ]);
  return { rows, rules, users };
}

/** The names of a user's roles. */
export async function roleNamesOfUser(db: Kysely<Database>, userId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('role')
    .innerJoin('user_role', 'user_role.role_id', 'role.id')
    .select('role.name')
    .where('user_role.user_id', '=', userId)
    .execute();
  return rows.map((r) => r.name);
}

/** The filters of `GET /role`: any of the organizations (with the default roles when `include_root`), any of the name/description patterns (SQL LIKE). */
export interface RoleFilter {
  organization_id?: readonly number[] | undefined;
  include_root?: boolean;
  name?: readonly string[] | undefined;
  description?: readonly string[] | undefined;
  rule_id?: number | undefined;
  user_id?: number | undefined;
}

/**
 * The ids of the roles a caller sees, matching `filter`, ascending. `scope` null: every role; else the roles the
 * caller holds (`held`), and with `organizationId` also those of that organization and the default roles.
 */
export function roleIds(
  db: Kysely<Database>,
  scope: { held: readonly number[]; organizationId?: number } | null,
  filter: RoleFilter,
): IdQuery {
  let ids = db.selectFrom('role').select('role.id as id').orderBy('role.id');
  if (scope !== null) {
    const heldOrNone = scope.held.length ? scope.held : [-1];
    const organizationId = scope.organizationId;
    ids =
      organizationId !== undefined
        ? ids.where((eb) =>
            eb.or([
              eb('role.organization_id', '=', organizationId),
              eb('role.organization_id', 'is', null),
              eb('role.id', 'in', heldOrNone),
            ]),
          )
        : ids.where('role.id', 'in', heldOrNone);
  }
  const orgs = filter.organization_id;
  if (orgs && orgs.length > 0) {
    ids = filter.include_root
      ? ids.where((eb) =>
          eb.or([eb('role.organization_id', 'in', orgs), eb('role.organization_id', 'is', null)]),
        )
      : ids.where('role.organization_id', 'in', orgs);
  }
  for (const field of ['name', 'description'] as const) {
    const patterns = filter[field];
    if (patterns && patterns.length > 0)
      ids = ids.where((eb) => eb.or(patterns.map((p) => eb(`role.${field}`, 'like', p))));
  }
  const ruleId = filter.rule_id;
  if (ruleId !== undefined) {
    ids = ids.where('role.id', 'in', (eb) =>
      eb.selectFrom('role_rule').select('role_rule.role_id').where('role_rule.rule_id', '=', ruleId),
    );
  }
  const userId = filter.user_id;
  if (userId !== undefined) {
    ids = ids.where('role.id', 'in', (eb) =>
      eb.selectFrom('user_role').select('user_role.role_id').where('user_role.user_id', '=', userId),
    );
  }
  return ids;
}

/** Creates a role with its rules in one transaction; returns its id. */
export async function createRole(
  db: Kysely<Database>,
  values: { name: string; description?: string | null | undefined; organization_id: number | null },
  ruleIds: readonly number[],
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.insertInto('role').values(values).returning('id').executeTakeFirstOrThrow();
    if (ruleIds.length)
      await trx
        .insertInto('role_rule')
        .values(ruleIds.map((rule_id) => ({ role_id: row.id, rule_id })))
        .execute();
    return row.id;
  });
}

/** Changes a role's name and description and, when `ruleIds` is given, replaces its rules; one transaction. */
export async function updateRole(
  db: Kysely<Database>,
  roleId: number,
  values: { name: string; description: string | null },
  ruleIds: readonly number[] | null,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('role').set(values).where('id', '=', roleId).execute();
    if (ruleIds) {
      await trx.deleteFrom('role_rule').where('role_id', '=', roleId).execute();
      if (ruleIds.length)
        await trx
          .insertInto('role_rule')
          .values(ruleIds.map((rule_id) => ({ role_id: roleId, rule_id })))
          .execute();
    }
  });
}

/** Deletes a role with its assignments to users and its rules. */
export async function deleteRole(db: Kysely<Database>, roleId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('user_role').where('role_id', '=', roleId).execute();
    await trx.deleteFrom('role_rule').where('role_id', '=', roleId).execute();
    await trx.deleteFrom('role').where('id', '=', roleId).execute();
  });
}

export async function addRuleToRole(db: Kysely<Database>, roleId: number, ruleId: number): Promise<void> {
  await db.insertInto('role_rule').values({ role_id: roleId, rule_id: ruleId }).execute();
}

export async function removeRuleFromRole(
  db: Kysely<Database>,
  roleId: number,
  ruleId: number,
): Promise<void> {
  await db.deleteFrom('role_rule').where('role_id', '=', roleId).where('rule_id', '=', ruleId).execute();
}

/** The users holding a role, in id order. */
export async function holdersOfRole(
  db: Kysely<Database>,
  roleId: number,
): Promise<Pick<UserRow, 'id' | 'username'>[]> {
  return db
    .selectFrom('user_role')
    .innerJoin('user', 'user.id', 'user_role.user_id')
    .select(['user.id', 'user.username'])
    .where('user_role.role_id', '=', roleId)
    .orderBy('user.id')
    .execute();
}

/**
 * The ids of the rules the holders of a role (other than `exceptUserId`) hold, through any of their roles or
 * directly, in one query.
 */
export async function ruleIdsOfHolders(
  db: Kysely<Database>,
  roleId: number,
  exceptUserId: number,
): Promise<number[]> {
  const viaRoles = db
    .selectFrom('user_role')
    .innerJoin('role_rule', 'role_rule.role_id', 'user_role.role_id')
    .select('role_rule.rule_id as rule_id')
    .where('user_role.user_id', 'in', (eb) =>
      eb.selectFrom('user_role as h').select('h.user_id').where('h.role_id', '=', roleId),
    )
    .where('user_role.user_id', '!=', exceptUserId);
  const direct = db
    .selectFrom('user_rule')
    .select('user_rule.rule_id as rule_id')
    .where('user_rule.user_id', 'in', (eb) =>
      eb.selectFrom('user_role as h').select('h.user_id').where('h.role_id', '=', roleId),
    )
    .where('user_rule.user_id', '!=', exceptUserId);
  return (await viaRoles.union(direct).execute()).map((r) => r.rule_id);
}
