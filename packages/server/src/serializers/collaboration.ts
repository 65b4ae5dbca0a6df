import type { Collaboration } from '@federa/common';
import type { AppContext } from '../context.js';
import { groupIds } from '../http/references.js';
import { inOrder } from '../http/pagination.js';
import { collaborationRows } from '../repositories/collaboration.js';

export { CollaborationSchema } from '@federa/common';
export type CollaborationOut = Collaboration;

export async function loadCollaborations(ctx: AppContext, ids: number[]): Promise<CollaborationOut[]> {
  if (ids.length === 0) return [];
  const { rows, members, nodes, tasks } = await collaborationRows(ctx.dbh.db, ids);
  const m = groupIds(members);
  const n = groupIds(nodes);
  const t = groupIds(tasks);
  return inOrder(ids, rows).map((c) => ({
    id: c.id,
    name: c.name,
    encrypted: Boolean(c.encrypted),
    organizations: ctx.refs.many('organization', m.get(c.id)),
    nodes: ctx.refs.many('node', n.get(c.id)),
    tasks: ctx.refs.many('task', t.get(c.id)),
  }));
}
