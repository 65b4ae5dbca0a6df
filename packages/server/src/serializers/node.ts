import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { toApiTime } from '../http/datetime.js';
import { inOrder } from '../http/pagination.js';
import { DateTime, Nullable, NullableReference, ReferenceSchema } from './common.js';

export const NodeSchema = Type.Object(
  {
    id: Type.Integer(),
    type: Type.Literal('node'),
    name: Nullable(Type.String()),
    ip: Nullable(Type.String()),
    status: Nullable(Type.String()),
    last_seen: DateTime,
    organization: ReferenceSchema,
    collaboration: NullableReference,
    config: Type.Array(Type.Object({ key: Type.String(), value: Type.String() })),
  },
  { $id: 'Node' },
);
export type NodeOut = Static<typeof NodeSchema>;

/** The simple form of `/collaboration/{id}/node` (api.md §2.3). */
export const NodeSimpleSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Nullable(Type.String()),
    ip: Nullable(Type.String()),
    status: Nullable(Type.String()),
    last_seen: DateTime,
    organization: ReferenceSchema,
    config: Type.Array(Type.Integer()),
  },
  { $id: 'NodeSimple' },
);
export type NodeSimpleOut = Static<typeof NodeSimpleSchema>;

/** `POST /node` answer: the node plus its API key, shown this once. */
export const NodeWithKeySchema = Type.Intersect([
  Type.Omit(NodeSchema, []),
  Type.Object({ api_key: Type.String() }),
]);

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
