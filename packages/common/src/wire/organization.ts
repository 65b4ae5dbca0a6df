import { Type, type Static } from '@sinclair/typebox';
import { Nullable, ReferenceList } from './fields.js';

/** An organization (docs/api.md#organization). */
export const OrganizationSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Nullable(Type.String()),
    domain: Nullable(Type.String()),
    address1: Nullable(Type.String()),
    address2: Nullable(Type.String()),
    zipcode: Nullable(Type.String()),
    country: Nullable(Type.String()),
    public_key: Type.String({ description: 'base64 of the PEM public key; "" when none' }),
    collaborations: ReferenceList,
    nodes: ReferenceList,
    users: ReferenceList,
    results: ReferenceList,
    roles: Type.Array(Type.Integer()),
  },
  { $id: 'Organization' },
);
export type Organization = Static<typeof OrganizationSchema>;
