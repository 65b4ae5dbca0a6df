import type { Rule } from '@federa/common';
import type { AppContext } from '../context.js';
import { groupIds } from '../http/references.js';
import { inOrder } from '../http/pagination.js';

export { RuleSchema } from '@federa/common';
export type RuleOut = Rule;

export async function loadRules(ctx: AppContext, ids: number[]): Promise<RuleOut[]> {
  if (ids.length === 0) return [];
  const db = ctx.dbh.db;
  const [rows, users] = await Promise.all([
    db.selectFrom('rule').selectAll().where('id', 'in', ids).execute(),
    db
      .selectFrom('user_rule')
      .select(['rule_id as k', 'user_id as v'])
      .where('rule_id', 'in', ids)
      .orderBy('user_id')
      .execute(),
  ]);
  const us = groupIds(users);
  return inOrder(ids, rows).map((r) => ({
    id: r.id,
    name: r.name,
    operation: r.operation,
    scope: r.scope,
    description: r.description,
    users: ctx.refs.many('user', us.get(r.id)),
  }));
}
