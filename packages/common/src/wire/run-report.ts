import { Type, type Static } from '@sinclair/typebox';

/** A string or null, without the coercion of `null` to `""` an `anyOf` would get from the validator. */
const NullableString = (description: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], description });

/** An uploaded output, named by its checksum and size (the answer of the upload; `result_stored` of a report). */
export const StoredOutputSchema = Type.Object(
  {
    sha256: Type.String({
      pattern: '^[0-9a-f]{64}$',
      maxLength: 64,
      description: 'SHA-256 of the uploaded bytes, hex',
    }),
    size: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'bytes uploaded' }),
  },
  { additionalProperties: false },
);
export type StoredOutputRef = Static<typeof StoredOutputSchema>;

/**
 * A node's report of a run, the body of `PATCH /result/{id}` (docs/run-statuses.md): the server validates with
 * this schema, the node sends this type. Absent and `null` differ: see each field.
 */
export const RunReportBodySchema = Type.Object({
  started_at: Type.Optional(NullableString('YYYY-MM-DDTHH:MM:SS[.ffffff]; kept when absent')),
  finished_at: Type.Optional(NullableString('YYYY-MM-DDTHH:MM:SS[.ffffff]; set to null when absent')),
  result: Type.Optional(NullableString('output (encrypted, or base64); set to null when absent')),
  log: Type.Optional(NullableString('container log; set to null when absent')),
  status: Type.Optional(NullableString('run status (docs/run-statuses.md); kept when absent')),
  result_stored: Type.Optional(StoredOutputSchema),
});
export type RunReportBody = Static<typeof RunReportBodySchema>;
