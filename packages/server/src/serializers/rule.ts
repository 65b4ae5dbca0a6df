import type { Rule } from '@federa/common';
import type { AppContext } from '../context.js';
import { groupIds } from '../http/references.js';
import { inOrder } from '../http/pagination.js';
import { ruleRows } from '../repositories/rule.js';

export { RuleSchema } from '@federa/common';
export type RuleOut = Rule;

export async function loadRules(ctx: AppContext, ids: number[]): Promise<RuleOut[]> {
  if (ids.length === 0) return [];
  const { rows, users } = await ruleRows(ctx.dbh.db, ids);
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
