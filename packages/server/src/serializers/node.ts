import type { Node, NodeSimple } from '@federa/common';
import type { AppContext } from '../context.js';
import { toApiTime } from '../http/datetime.js';
import { fromRows, inOrder, type PageLoad } from '../http/pagination.js';
import { configsOfNodes, nodeRows } from '../repositories/node.js';
import type { RowOf } from '../repositories/listing.js';

export { NodeSchema, NodeSimpleSchema, NodeWithKeySchema } from '@federa/common';
export type NodeOut = Node;
export type NodeSimpleOut = NodeSimple;

export async function loadNodes(ctx: AppContext, ids: number[]): Promise<NodeOut[]> {
  if (ids.length === 0) return [];
  return nodesOf(ctx, inOrder(ids, await nodeRows.byIds(ctx.dbh.db, ids)));
}

/** Nodes as {@link loadNodes} makes them, from the rows of a listing's page. */
export const nodePage = (ctx: AppContext): PageLoad<NodeOut> =>
  fromRows(nodeRows, (rows) => nodesOf(ctx, rows));

type NodeListRow = RowOf<typeof nodeRows>;

/** The configuration entries of the nodes that have any: a query only when one has. */
async function configsOf(ctx: AppContext, rows: readonly NodeListRow[]) {
  const withConfig = rows.filter((n) => Boolean(n.has_config)).map((n) => n.id);
  return withConfig.length ? configsOfNodes(ctx.dbh.db, withConfig) : [];
}

async function nodesOf(ctx: AppContext, rows: readonly NodeListRow[]): Promise<NodeOut[]> {
  const configs = await configsOf(ctx, rows);
  return rows.map((n) => ({
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
  const rows = inOrder(ids, await nodeRows.byIds(ctx.dbh.db, ids));
  const configs = await configsOf(ctx, rows);
  return rows.map((n) => ({
    id: n.id,
    name: n.name,
    ip: n.ip,
    status: n.status,
    last_seen: toApiTime(n.last_seen),
    organization: ctx.refs.one('organization', n.organization_id),
    config: configs.filter((c) => c.node_id === n.id).map((c) => c.id),
  }));
}
