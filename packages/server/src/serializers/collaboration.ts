import type { Collaboration } from '@federa/common';
import type { AppContext } from '../context.js';
import { groupIds } from '../http/references.js';
import { inOrder } from '../http/pagination.js';

export { CollaborationSchema } from '@federa/common';
export type CollaborationOut = Collaboration;

export async function loadCollaborations(ctx: AppContext, ids: number[]): Promise<CollaborationOut[]> {
  if (ids.length === 0) return [];
  const db = ctx.dbh.db;
  const [rows, members, nodes, tasks] = await Promise.all([
    db.selectFrom('collaboration').selectAll().where('id', 'in', ids).execute(),
    db
      .selectFrom('member')
      .select(['collaboration_id as k', 'organization_id as v'])
      .where('collaboration_id', 'in', ids)
      .orderBy('organization_id')
      .execute(),
    db
      .selectFrom('node')
      .select(['collaboration_id as k', 'id as v'])
      .where('collaboration_id', 'in', ids)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('task')
      .select(['collaboration_id as k', 'id as v'])
      .where('collaboration_id', 'in', ids)
      .orderBy('id')
      .execute(),
  ]);
  const m = groupIds(members);
  const n = groupIds(nodes as { k: number; v: number }[]);
  const t = groupIds(tasks as { k: number; v: number }[]);
  return inOrder(ids, rows).map((c) => ({
    id: c.id,
    name: c.name,
    encrypted: Boolean(c.encrypted),
    organizations: ctx.refs.many('organization', m.get(c.id)),
    nodes: ctx.refs.many('node', n.get(c.id)),
    tasks: ctx.refs.many('task', t.get(c.id)),
  }));
}
