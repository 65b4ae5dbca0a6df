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
