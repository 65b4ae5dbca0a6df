import type { Node, NodeSimple } from '@federa/common';
import type { AppContext } from '../context.js';
import { toApiTime } from '../http/datetime.js';
import { inOrder } from '../http/pagination.js';

export { NodeSchema, NodeSimpleSchema, NodeWithKeySchema } from '@federa/common';
export type NodeOut = Node;
export type NodeSimpleOut = NodeSimple;

export async function loadNodes(ctx: AppContext, ids: number[]): Promise<NodeOut[]> {
  if (ids.length === 0) return [];
  const db = ctx.dbh.db;
  const [rows, configs] = await Promise.all([
    db
      .selectFrom('node')
      .select(['id', 'name', 'ip', 'status', 'last_seen', 'organization_id', 'collaboration_id'])
      .where('id', 'in', ids)
      .execute(),
    db
      .selectFrom('node_config')
      .select(['node_id', 'key', 'value'])
      .where('node_id', 'in', ids)
      .orderBy('id')
      .execute(),
  ]);
  return inOrder(ids, rows).map((n) => ({
    id: n.id,
    type: 'node' as const,
    name: n.name,
    ip: n.ip,
    status: n.status,
    last_seen: toApiTime(n.last_seen),
    organization: ctx.refs.one('organization', n.organization_id),
    collaboration: ctx.refs.maybe('collaboration', n.collaboration_id),
    config: configs.filter((c) => c.node_id === n.id).map((c) => ({ key: c.key, value: c.value })),
  }));
}

export async function loadNodesSimple(ctx: AppContext, ids: number[]): Promise<NodeSimpleOut[]> {
  if (ids.length === 0) return [];
  const db = ctx.dbh.db;
  const [rows, configs] = await Promise.all([
    db
      .selectFrom('node')
      .select(['id', 'name', 'ip', 'status', 'last_seen', 'organization_id'])
      .where('id', 'in', ids)
      .execute(),
    db
      .selectFrom('node_config')
      .select(['node_id', 'id'])
      .where('node_id', 'in', ids)
      .orderBy('id')
      .execute(),
  ]);
  return inOrder(ids, rows).map((n) => ({
    id: n.id,
    name: n.name,
    ip: n.ip,
    status: n.status,
    last_seen: toApiTime(n.last_seen),
    organization: ctx.refs.one('organization', n.organization_id),
    config: configs.filter((c) => c.node_id === n.id).map((c) => c.id),
  }));
}
