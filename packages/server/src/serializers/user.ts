import type { User } from '@federa/common';
import type { AppContext } from '../context.js';
import { toApiTime } from '../http/datetime.js';
import { groupIds } from '../http/references.js';
import { inOrder } from '../http/pagination.js';
import { userRows } from '../repositories/user.js';

export { UserSchema } from '@federa/common';
export type UserOut = User;

export async function loadUsers(ctx: AppContext, ids: number[]): Promise<UserOut[]> {
  if (ids.length === 0) return [];
  const { rows, roles, rules, tasks } = await userRows(ctx.dbh.db, ids);
  const ro = groupIds(roles);
  const ru = groupIds(rules);
  const t = groupIds(tasks);
  return inOrder(ids, rows).map((u) => ({
    id: u.id,
    type: 'user' as const,
    username: u.username,
    firstname: u.firstname,
    lastname: u.lastname,
    email: u.email,
    ip: null,
    status: u.status,
    last_seen: toApiTime(u.last_seen),
    organization: ctx.refs.one('organization', u.organization_id),
    roles: ctx.refs.many('role', ro.get(u.id)),
    rules: ctx.refs.many('rule', ru.get(u.id)),
    created_tasks: t.get(u.id) ?? [],
  }));
}
