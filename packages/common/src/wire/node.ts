import { Type, type Static } from '@sinclair/typebox';
import { BodyField, DateTime, Nullable, NullableReference, ReferenceSchema } from './fields.js';

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

/** A node's name: it becomes part of container names. */
const NodeNameField = Type.String({ description: 'a valid container name: [a-zA-Z0-9][a-zA-Z0-9_.-]*' });

/** Body of `POST /node`. */
export const NewNodeBodySchema = Type.Object({
  collaboration_id: Type.Integer({ description: 'Collaboration id is required' }),
  organization_id: BodyField(Type.Integer({ description: 'default: your own organization' })),
  name: BodyField(NodeNameField),
});
export type NewNodeBody = Static<typeof NewNodeBodySchema>;

/** Body of `PATCH /node/{id}`. */
export const NodePatchBodySchema = Type.Object({
  name: BodyField(NodeNameField),
  organization_id: BodyField(Type.Integer()),
  collaboration_id: BodyField(Type.Integer()),
  ip: BodyField(Type.String({ description: 'VPN IP of the node' })),
  clear_ip: Type.Optional(Type.Unknown({ description: 'truthy: set ip to null' })),
});
export type NodePatchBody = Static<typeof NodePatchBodySchema>;

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
