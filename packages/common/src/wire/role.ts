import { Type, type Static } from '@sinclair/typebox';
import { BodyField, IdListField, Nullable, NullableReference, ReferenceList } from './fields.js';

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

/** Body of `POST /role`. */
export const NewRoleBodySchema = Type.Object({
  name: Type.String({ minLength: 1 }),
  description: Type.String(),
  rules: BodyField(IdListField),
  organization_id: BodyField(Type.Integer({ description: 'default: your own organization' })),
});
export type NewRoleBody = Static<typeof NewRoleBodySchema>;

/** Body of `PATCH /role/{id}`: `rules`, when given, replaces the role's rules. */
export const RolePatchBodySchema = Type.Object({
  name: BodyField(Type.String({ minLength: 1 })),
  description: BodyField(Type.String()),
  rules: BodyField(IdListField),
});
export type RolePatchBody = Static<typeof RolePatchBodySchema>;
