import type { Node, NodeSimple } from '@federa/common';
import type { AppContext } from '../context.js';
import { toApiTime } from '../http/datetime.js';
import { inOrder } from '../http/pagination.js';
import { nodeRows } from '../repositories/node.js';

export { NodeSchema, NodeSimpleSchema, NodeWithKeySchema } from '@federa/common';
export type NodeOut = Node;
export type NodeSimpleOut = NodeSimple;

export async function loadNodes(ctx: AppContext, ids: number[]): Promise<NodeOut[]> {
  if (ids.length === 0) return [];
  const { rows, configs } = await nodeRows(ctx.dbh.db, ids);
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
  const { rows, configs } = await nodeRows(ctx.dbh.db, ids);
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
