import type { Role } from '@federa/common';
import type { AppContext } from '../context.js';
import { groupIds } from '../http/references.js';
import { inOrder } from '../http/pagination.js';
import { roleRows } from '../repositories/role.js';

export { RoleSchema } from '@federa/common';
export type RoleOut = Role;

export async function loadRoles(ctx: AppContext, ids: number[]): Promise<RoleOut[]> {
  if (ids.length === 0) return [];
  const { rows, rules, users } = await roleRows(ctx.dbh.db, ids);
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
