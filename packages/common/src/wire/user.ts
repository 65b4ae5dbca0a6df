import { Type, type Static } from '@sinclair/typebox';
import { BodyField, DateTime, IdListField, Nullable, ReferenceList, ReferenceSchema } from './fields.js';

/** A user as the API shows it (docs/api.md#user): never the password hash, the failed-login counter or any 2FA secret. */
export const UserSchema = Type.Object(
  {
    id: Type.Integer(),
    type: Type.Literal('user'),
    username: Type.String(),
    firstname: Nullable(Type.String()),
    lastname: Nullable(Type.String()),
    email: Nullable(Type.String()),
    ip: Type.Null(),
    status: Nullable(Type.String()),
    last_seen: DateTime,
    organization: ReferenceSchema,
    roles: ReferenceList,
    rules: ReferenceList,
    created_tasks: Type.Array(Type.Integer()),
  },
  { $id: 'User' },
);
export type User = Static<typeof UserSchema>;

/** Body of `POST /user`. */
export const NewUserBodySchema = Type.Object({
  username: Type.String({ minLength: 1 }),
  firstname: Type.String(),
  lastname: Type.String(),
  password: Type.String(),
  email: Type.String({ minLength: 1 }),
  organization_id: BodyField(Type.Integer({ description: 'default: your own organization' })),
  roles: BodyField(IdListField),
  rules: BodyField(IdListField),
});
export type NewUserBody = Static<typeof NewUserBodySchema>;

/** Body of `PATCH /user/{id}`: fields left out or `null` are kept; `roles` and `rules` replace the current ones. */
export const UserPatchBodySchema = Type.Object({
  username: BodyField(Type.String()),
  firstname: BodyField(Type.String()),
  lastname: BodyField(Type.String()),
  email: BodyField(Type.String()),
  password: BodyField(Type.String({ description: 'refused: change passwords with PATCH /password/change' })),
  roles: BodyField(IdListField),
  rules: BodyField(IdListField),
  current_password: BodyField(
    Type.String({ description: 'your current password: needed (only) to change your own e-mail address' }),
  ),
  organization_id: BodyField(
    Type.Integer({ description: 'refused unless it is the current one: users cannot change organization' }),
  ),
});
export type UserPatchBody = Static<typeof UserPatchBodySchema>;
