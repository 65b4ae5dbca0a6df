import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { IdQuery } from './listing.js';

/** Data access for rules (docs/api.md#organizations): the fixed table of permissions. */

/** Rule rows by id with the ids of the users holding them directly as (rule, user) pairs, for the serializer. */
export async function ruleRows(db: Kysely<Database>, ids: readonly number[]) {
  const [rows, users] = await Promise.all([
    db.selectFrom('rule').selectAll().where('id', 'in', ids).execute(),
    db
      .selectFrom('user_rule')
      .select(['rule_id as k', 'user_id as v'])
      .where('rule_id', 'in', ids)
      .orderBy('user_id')
      .execute(),
  ]);
  return { rows, users };
}

/** The filters of `GET /rule`. */
export interface RuleFilter {
  name?: string | undefined;
  operation?: string | undefined;
  scope?: string | undefined;
  role_id?: number | undefined;
  user_id?: number | undefined;
}

/**
 * The ids of the rules matching `filter`, ascending: with `role_id`, those the role contains; with `user_id`, those
 * the user has, through a role or given directly.
 */
export function ruleIds(db: Kysely<Database>, filter: RuleFilter): IdQuery {
  let ids = db.selectFrom('rule').select('rule.id as id').orderBy('rule.id');
  if (filter.name !== undefined) ids = ids.where('rule.name', '=', filter.name);
  if (filter.operation !== undefined) ids = ids.where('rule.operation', '=', filter.operation);
  if (filter.scope !== undefined) ids = ids.where('rule.scope', '=', filter.scope);
  const roleId = filter.role_id;
  if (roleId !== undefined) {
    ids = ids.where('rule.id', 'in', (eb) =>
      eb.selectFrom('role_rule').select('role_rule.rule_id').where('role_rule.role_id', '=', roleId),
    );
  }
  const userId = filter.user_id;
  if (userId !== undefined) {
    ids = ids.where((eb) =>
      eb.or([
        eb(
          'rule.id',
          'in',
          eb
            .selectFrom('role_rule')
            .innerJoin('user_role', 'user_role.role_id', 'role_rule.role_id')
            .select('role_rule.rule_id')
            .where('user_role.user_id', '=', userId),
        ),
        eb(
          'rule.id',
          'in',
          eb.selectFrom('user_rule').select('user_rule.rule_id').where('user_rule.user_id', '=', userId),
        ),
      ]),
    );
  }
  return ids;
}

/** The ids of the rules a role contains as a listing, ascending. */
export function ruleIdsOfRoleListing(db: Kysely<Database>, roleId: number): IdQuery {
  return db
    .selectFrom('rule')
    .select('rule.id as id')
    .where('rule.id', 'in', (eb) =>
      eb.selectFrom('role_rule').select('role_rule.rule_id').where('role_rule.role_id', '=', roleId),
    )
    .orderBy('rule.id');
}
