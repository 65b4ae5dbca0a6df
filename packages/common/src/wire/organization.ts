import { Type, type Static } from '@sinclair/typebox';
import { BodyField, Nullable, ReferenceList } from './fields.js';

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

const orgField = (description: string) => BodyField(Type.String({ description }));

/** Body of `POST` and `PATCH /organization`: every field optional; `""` is stored as `""`, `null` is ignored. */
export const OrganizationBodySchema = Type.Object({
  name: orgField('name of the organization'),
  domain: orgField('internet domain, e.g. example.org'),
  address1: orgField('first address line'),
  address2: orgField('second address line'),
  zipcode: orgField('postal code'),
  country: orgField('country'),
  public_key: orgField('base64 text of the PEM public key; "" for none'),
});
export type OrganizationBody = Static<typeof OrganizationBodySchema>;
