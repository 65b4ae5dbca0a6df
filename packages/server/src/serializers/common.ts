import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { withoutIds } from './schema-utils.js';

/** `{id, link, methods}` (api.md §1.8). */
export const ReferenceSchema = Type.Object({
  id: Type.Integer(),
  link: Type.String(),
  methods: Type.Array(Type.String()),
});
/**
 * A value or null, written with OpenAPI 3.0's `nullable` rather than a union: the response serializer then
 * writes it directly instead of validating each value against the union's branches (much faster for the long
 * reference lists of organizations and collaborations).
 */
export const Nullable = <T extends TSchema>(t: T) => Type.Unsafe<Static<T> | null>({ ...t, nullable: true });
export const NullableReference = Nullable(ReferenceSchema);
/** To-many references: null when empty. */
export const ReferenceList = Nullable(Type.Array(ReferenceSchema));
export const DateTime = Nullable(Type.String({ description: 'ISO-8601 with +00:00' }));

/** `{"msg": "..."}` answers. */
export const MessageSchema = Type.Object({ msg: Type.String() });

/** Error body: `msg` always; `code` from the error table; `message` names fields on validation errors. */
export const ErrorSchema = Type.Object(
  { msg: Type.String(), code: Type.Optional(Type.String()), message: Type.Optional(Type.Unknown()) },
  { description: 'Error' },
);

/** Standard error answers, added to every route's response schema. */
export const errorResponses = {
  400: ErrorSchema,
  401: ErrorSchema,
  404: ErrorSchema,
  422: ErrorSchema,
  500: ErrorSchema,
};

/**
 * A paginated listing: a bare array, or `{data, links}` with `include=metadata`. The item appears twice, so the
 * `$id`s inside it are dropped (fast-json-stringify refuses one `$id` that resolves to two schemas).
 */
export const Paginated = <T extends TSchema>(item: T) => {
  const plain = withoutIds(item);
  return Type.Union([
    Type.Array(plain),
    Type.Object({ data: Type.Array(plain), links: Type.Record(Type.String(), Type.String()) }),
  ]);
};

export const IdParams = Type.Object({ id: Type.Integer({ minimum: 0, description: 'resource id' }) });
