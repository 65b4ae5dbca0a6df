import type { User } from '@federa/common';
import type { AppContext } from '../context.js';
import { toApiTime } from '../http/datetime.js';
import { parseIdList } from '../db/id-list.js';
import { inOrder } from '../http/pagination.js';
import { userRows } from '../repositories/user.js';

export { UserSchema } from '@federa/common';
export type UserOut = User;

export async function loadUsers(ctx: AppContext, ids: number[]): Promise<UserOut[]> {
  if (ids.length === 0) return [];
  const rows = await userRows(ctx.dbh.db, ids);
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
    roles: ctx.refs.many('role', parseIdList(u.role_ids)),
    rules: ctx.refs.many('rule', parseIdList(u.rule_ids)),
    created_tasks: parseIdList(u.task_ids),
  }));
}
