import type { User } from '@federa/common';
import type { AppContext } from '../context.js';
import { toApiTime } from '../http/datetime.js';
import { groupIds } from '../http/references.js';
import { inOrder } from '../http/pagination.js';

export { UserSchema } from '@federa/common';
export type UserOut = User;

export async function loadUsers(ctx: AppContext, ids: number[]): Promise<UserOut[]> {
  if (ids.length === 0) return [];
  const db = ctx.dbh.db;
  const [rows, roles, rules, tasks] = await Promise.all([
    db
      .selectFrom('user')
      .select(['id', 'username', 'firstname', 'lastname', 'email', 'status', 'last_seen', 'organization_id'])
      .where('id', 'in', ids)
      .execute(),
    db
      .selectFrom('user_role')
      .select(['user_id as k', 'role_id as v'])
      .where('user_id', 'in', ids)
      .orderBy('role_id')
      .execute(),
    db
      .selectFrom('user_rule')
      .select(['user_id as k', 'rule_id as v'])
      .where('user_id', 'in', ids)
      .orderBy('rule_id')
      .execute(),
    db
      .selectFrom('task')
      .select(['init_user_id as k', 'id as v'])
      .where('init_user_id', 'in', ids)
      .orderBy('id')
      .execute(),
  ]);
  const ro = groupIds(roles);
  const ru = groupIds(rules);
  const t = groupIds(tasks as { k: number; v: number }[]);
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
