/**
 * What a function's result holds, declared ahead of its run (docs/output-control.md#declared-outputs), so that a
 * node can check it against its disclosure thresholds before it leaves. A declaration names a kind and, for each of
 * that kind's fields, the key of the result's top-level JSON object that holds it. The node takes a declaration from
 * its own configuration (per image and function) or from the algorithm store's function description; both use this
 * one shape.
 */

/** The kinds of declared output, and the fields each names. */
export const OUTPUT_KIND_FIELDS = {
  /** A table of counts: `counts` holds a number, a list or an object of counts, nested at any depth. */
  count_table: ['counts'],
  /** The mean of each group and the group's size: `means` and `counts` hold the same groups (list or object). */
  group_means: ['means', 'counts'],
  /** A fitted model: `coefficients` (list or object of numbers) estimated from `rows` rows. */
  model_coefficients: ['coefficients', 'rows'],
} as const;

export type OutputKind = keyof typeof OUTPUT_KIND_FIELDS;
export const OUTPUT_KINDS = Object.keys(OUTPUT_KIND_FIELDS) as OutputKind[];

export type OutputDeclaration =
  | { readonly kind: 'count_table'; readonly counts: string }
  | { readonly kind: 'group_means'; readonly means: string; readonly counts: string }
  | { readonly kind: 'model_coefficients'; readonly coefficients: string; readonly rows: string };

/** A result key: what a top-level key of a JSON object may be named in a declaration. */
const KEY = /^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/;

/**
 * The declaration `value` describes, or why it is not one (naming the field at fault, relative to `value`). Every
 * field of the kind is required and nothing else is allowed: a declaration that does not say exactly where its
 * numbers are cannot be checked.
 */
export function parseOutputDeclaration(
  value: unknown,
): { declaration: OutputDeclaration } | { error: string; field?: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { error: `an output declaration is an object with a 'kind' (one of: ${OUTPUT_KINDS.join(', ')})` };
  const v = value as Record<string, unknown>;
  const kind = v.kind;
  if (typeof kind !== 'string' || !(OUTPUT_KINDS as string[]).includes(kind))
    return { error: `'kind' must be one of: ${OUTPUT_KINDS.join(', ')}`, field: 'kind' };
  const fields = OUTPUT_KIND_FIELDS[kind as OutputKind] as readonly string[];
  for (const k of Object.keys(v))
    if (k !== 'kind' && !fields.includes(k))
      return { error: `a ${kind} declares only: ${fields.join(', ')}`, field: k };
  for (const f of fields) {
    const key = v[f];
    if (typeof key !== 'string' || !KEY.test(key))
      return {
        error: `'${f}' must name the result key that holds it (letters, digits, '_', '.', '-'; not starting with a digit)`,
        field: f,
      };
  }
  return { declaration: v as unknown as OutputDeclaration };
}
