import { Type, type Static } from '@sinclair/typebox';
import { BodyField, ReferenceList } from './fields.js';

/** A collaboration (docs/api.md#collaboration). */
export const CollaborationSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    encrypted: Type.Boolean(),
    organizations: ReferenceList,
    nodes: ReferenceList,
    tasks: ReferenceList,
  },
  { $id: 'Collaboration' },
);
export type Collaboration = Static<typeof CollaborationSchema>;

/** `encrypted` in a body: a boolean or an integer, checked by the server (only `true`/`1` mean encrypted). */
const EncryptedField = Type.Unknown({
  description: 'boolean or integer; only true/1 mean end-to-end encrypted',
});

/** Body of `POST /collaboration`. */
export const NewCollaborationBodySchema = Type.Object({
  name: Type.String({ minLength: 1, description: 'unique name' }),
  organization_ids: Type.Array(Type.Integer(), {
    description: 'member organizations; unknown ids are dropped',
  }),
  encrypted: Type.Optional(EncryptedField),
});
export type NewCollaborationBody = Static<typeof NewCollaborationBodySchema>;

/** Body of `PATCH /collaboration/{id}`: `organization_ids` replaces the member list. */
export const CollaborationPatchBodySchema = Type.Object({
  name: BodyField(Type.String({ minLength: 1 })),
  organization_ids: BodyField(Type.Array(Type.Integer())),
  encrypted: Type.Optional(EncryptedField),
});
export type CollaborationPatchBody = Static<typeof CollaborationPatchBodySchema>;
