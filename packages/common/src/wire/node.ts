import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable, NullableReference, ReferenceSchema } from './fields.js';

/** A node (docs/api.md#node). */
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
export type Node = Static<typeof NodeSchema>;

/** The simple form of `/collaboration/{id}/node` (docs/api.md#node). */
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
export type NodeSimple = Static<typeof NodeSimpleSchema>;

/** `POST /node` answer: the node plus its API key, shown this once. */
export const NodeWithKeySchema = Type.Intersect([
  Type.Omit(NodeSchema, []),
  Type.Object({ api_key: Type.String() }),
]);
export type NodeWithKey = Static<typeof NodeWithKeySchema>;

/** One period a node was online, of `GET /node/{id}/history` (docs/api.md#nodes). */
export const NodeOnlinePeriodSchema = Type.Object(
  {
    id: Type.Integer(),
    node: ReferenceSchema,
    started_at: Type.String({ description: 'ISO-8601 with +00:00: when the node came online' }),
    ended_at: Nullable(
      Type.String({ description: 'ISO-8601 with +00:00: when it went offline; null while it is online' }),
    ),
    end_reason: Nullable(
      Type.String({
        description:
          'why it went offline: disconnected, connection_lost, timed_out, disconnected_by_server, server_stopped or server_restarted; null while online',
      }),
    ),
  },
  { $id: 'NodeOnlinePeriod' },
);
export type NodeOnlinePeriod = Static<typeof NodeOnlinePeriodSchema>;
