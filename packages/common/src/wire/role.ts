import { Type, type Static } from '@sinclair/typebox';
import { Nullable, NullableReference, ReferenceList } from './fields.js';

/** A role (docs/api.md#role). */
export const RoleSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Nullable(Type.String()),
    organization: NullableReference,
    rules: ReferenceList,
    users: ReferenceList,
  },
  { $id: 'Role' },
);
export type Role = Static<typeof RoleSchema>;
