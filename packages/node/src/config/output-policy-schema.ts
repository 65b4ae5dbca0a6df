/**
 * `policies.output` of the node configuration file (docs/output-control.md): what may leave the node, checked on the
 * plain result before it is encrypted. Validated with the rest of the file; the declarations and the cross-checks
 * of the thresholds in output-policy.ts.
 */
import { Type } from '@sinclair/typebox';

export const PAYLOAD_FORMATS = ['json', 'pickle', 'legacy'] as const;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const Checks = Type.Object(
  {
    min_cell_count: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    min_group_size: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    max_parameters_ratio: Type.Optional(Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 1 }))),
    max_levels: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  },
  { additionalProperties: false },
);

const Declaration = Type.Object(
  {
    image: Type.String({ minLength: 1 }),
    function: Type.Optional(Type.String({ minLength: 1 })),
    output: Type.Unknown(),
  },
  { additionalProperties: false },
);

const Hold = Type.Object(
  {
    all: Type.Optional(Type.Boolean()),
    images: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    functions: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    collaborations: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }))),
    users: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }))),
    expire_after_hours: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 8760 })),
  },
  { additionalProperties: false },
);

export const OutputPolicySchema = Type.Object(
  {
    max_bytes: Type.Optional(Type.Integer({ minimum: 1 })),
    formats: Type.Optional(
      Type.Array(Type.Union(PAYLOAD_FORMATS.map((f) => Type.Literal(f))), { minItems: 1 }),
    ),
    undeclared: Type.Optional(Type.Union([Type.Literal('run'), Type.Literal('refuse')])),
    on_failure: Type.Optional(Type.Union([Type.Literal('refuse'), Type.Literal('suppress')])),
    checks: Type.Optional(Nullable(Checks)),
    declarations: Type.Optional(Type.Array(Declaration)),
    hold: Type.Optional(Nullable(Hold)),
  },
  { additionalProperties: false },
);
