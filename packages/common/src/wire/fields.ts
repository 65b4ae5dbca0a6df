/**
 * The field types every resource of the API uses: references (`{id, link, methods}`), values that may be null,
 * and timestamps.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

/** `{id, link, methods}` (docs/api.md#references). */
export const ReferenceSchema = Type.Object({
  id: Type.Integer(),
  link: Type.String(),
  methods: Type.Array(Type.String()),
});
/** A link to another resource; `link` is the path including the API prefix, e.g. `/api/organization/3`. */
export type Reference = Static<typeof ReferenceSchema>;

/**
 * A value or null, written with OpenAPI 3.0's `nullable` rather than a union: the server's response serializer
 * then writes it directly instead of validating each value against the union's branches (much faster for the
 * long reference lists of organizations and collaborations).
 */
export const Nullable = <T extends TSchema>(t: T) => Type.Unsafe<Static<T> | null>({ ...t, nullable: true });
export const NullableReference = Nullable(ReferenceSchema);
/** To-many references: null when empty. */
export const ReferenceList = Nullable(Type.Array(ReferenceSchema));
export const DateTime = Nullable(Type.String({ description: 'ISO-8601 with +00:00' }));

/**
 * A request body field that may be left out or sent as `null` (3.x clients send `null` for fields they were not
 * given). `nullable` rather than a union, so the server's type coercion neither turns `null` into `""`, `0` or
 * `false` nor `""` into anything else.
 */
export const BodyField = <T extends TSchema>(t: T) => Type.Optional(Nullable(t));
/** A list of ids in a request body (roles, rules). */
export const IdListField = Type.Array(Type.Integer({ minimum: 0 }));
