import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable, ReferenceList, ReferenceSchema } from './fields.js';

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
