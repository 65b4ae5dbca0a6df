import { Type, type Static } from '@sinclair/typebox';
import { Nullable, ReferenceList } from './fields.js';

/** A rule (docs/api.md#rule); `name` is the resource it governs (`user`, `task`, …). */
export const RuleSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    operation: Type.String({ description: 'VIEW, EDIT, CREATE or DELETE' }),
    scope: Type.String({ description: 'OWN, ORGANIZATION, COLLABORATION or GLOBAL' }),
    description: Nullable(Type.String()),
    users: ReferenceList,
  },
  { $id: 'Rule' },
);
export type Rule = Static<typeof RuleSchema>;
