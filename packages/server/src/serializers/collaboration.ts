import type { Collaboration } from '@federa/common';
import type { AppContext } from '../context.js';
import { parseIdList } from '../db/id-list.js';
import { inOrder } from '../http/pagination.js';
import { collaborationRows } from '../repositories/collaboration.js';

export { CollaborationSchema } from '@federa/common';
export type CollaborationOut = Collaboration;

export async function loadCollaborations(ctx: AppContext, ids: number[]): Promise<CollaborationOut[]> {
  if (ids.length === 0) return [];
  const rows = await collaborationRows(ctx.dbh.db, ids);
  return inOrder(ids, rows).map((c) => ({
    id: c.id,
    name: c.name,
    encrypted: Boolean(c.encrypted),
    organizations: ctx.refs.many('organization', parseIdList(c.organization_ids)),
    nodes: ctx.refs.many('node', parseIdList(c.node_ids)),
    tasks: ctx.refs.many('task', parseIdList(c.task_ids)),
  }));
}

/**
 * One collaboration as the JSON text of {@link CollaborationSchema}, written flat ({@link References.manyJson}):
 * `GET /collaboration/{id}` lists every task of the collaboration. Undefined when it does not exist.
 */
export async function collaborationJson(ctx: AppContext, id: number): Promise<string | undefined> {
  const [c] = await collaborationRows(ctx.dbh.db, [id]);
  if (!c) return undefined;
  const refs = ctx.refs;
  return [
    `{"id":${c.id},"name":${JSON.stringify(c.name)},"encrypted":${Boolean(c.encrypted)}`,
    `,"organizations":${refs.manyJson('organization', parseIdList(c.organization_ids))}`,
    `,"nodes":${refs.manyJson('node', parseIdList(c.node_ids))}`,
    `,"tasks":${refs.manyJson('task', parseIdList(c.task_ids))}}`,
  ].join('');
}
