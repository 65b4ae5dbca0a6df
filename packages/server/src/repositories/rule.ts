import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** Data access for rules (api.md §4.5): the fixed table of permissions. */

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
