import type { Role } from '@federa/common';
import type { AppContext } from '../context.js';
import { groupIds } from '../http/references.js';
import { inOrder } from '../http/pagination.js';

export { RoleSchema } from '@federa/common';
export type RoleOut = Role;

export async function loadRoles(ctx: AppContext, ids: number[]): Promise<RoleOut[]> {
  if (ids.length === 0) return [];
  const db = ctx.dbh.db;
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
  const ru = groupIds(rules);
  const us = groupIds(users);
  return inOrder(ids, rows).map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    organization: ctx.refs.maybe('organization', r.organization_id),
    rules: ctx.refs.many('rule', ru.get(r.id)),
    users: ctx.refs.many('user', us.get(r.id)),
  }));
}
