import { Type, type Static } from '@sinclair/typebox';
import { ReferenceList } from './fields.js';

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
