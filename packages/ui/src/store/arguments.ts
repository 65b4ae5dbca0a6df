/**
 * The values of a store function's arguments as the generated task form reads them (docs/store.md): each field's
 * text becomes a value of the argument's type, or a plain message naming the argument. The server checks the same
 * rules again (packages/server/src/store/arguments.ts); the form checks them first so a mistake is shown at the
 * field instead of after a round trip, and so the input of an encrypted collaboration, which the server cannot
 * read, is checked at all.
 */
import type { StoreArgument } from '@federa/client';

/** What the field of one argument holds: text, a checkbox, or picked organization ids. */
export type FieldValue = string | boolean | number[];

export type Parsed = { value: unknown } | { error: string } | { omitted: true };

const LIST_ITEM: Record<string, 'string' | 'integer' | 'float'> = {
  string_list: 'string',
  column_list: 'string',
  integer_list: 'integer',
  float_list: 'float',
};

const label = (a: StoreArgument): string => a.display_name || a.name;

function number(text: string, kind: 'integer' | 'float'): number | null {
  const t = text.trim();
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return null;
  const n = Number(t);
  if (!Number.isFinite(n)) return null;
  return kind === 'integer' && !Number.isInteger(n) ? null : n;
}

/** The empty value a field starts with (the default when the argument has one). */
export function initialValue(a: StoreArgument): FieldValue {
  if (a.type === 'boolean') return a.has_default_value ? a.default_value === 'true' : false;
  if (a.type === 'organization' || a.type === 'organization_list') return [];
  return a.has_default_value && a.default_value !== undefined ? a.default_value : '';
}

/** One argument's value from its field, or why it cannot be taken. */
export function parseArgument(a: StoreArgument, field: FieldValue): Parsed {
  const name = `'${label(a)}'`;
  const required = !a.has_default_value;
  let value: unknown;
  if (a.type === 'boolean') value = field === true;
  else if (a.type === 'organization' || a.type === 'organization_list') {
    const ids = Array.isArray(field) ? field : [];
    if (ids.length === 0)
      return required ? { error: `${name} is required: choose an organization.` } : { omitted: true };
    if (a.type === 'organization' && ids.length > 1)
      return { error: `${name} takes one organization, not ${ids.length}.` };
    value = a.type === 'organization' ? ids[0] : ids;
  } else {
    const text = typeof field === 'string' ? field.trim() : '';
    if (text === '') return required ? { error: `${name} is required.` } : { omitted: true };
    const item = LIST_ITEM[a.type];
    if (item) {
      const parts = text.split(',').map((p) => p.trim());
      if (parts.some((p) => p === ''))
        return { error: `${name} is a list separated by commas, with no empty item.` };
      if (item === 'string') value = parts;
      else {
        const bad = parts.find((p) => number(p, item) === null);
        if (bad !== undefined)
          return {
            error: `${name} must be a list of ${item === 'integer' ? 'whole numbers' : 'numbers'}: "${bad}" is not one.`,
          };
        value = parts.map((p) => number(p, item));
      }
    } else if (a.type === 'integer' || a.type === 'float') {
      value = number(text, a.type);
      if (value === null)
        return {
          error: `${name} must be ${a.type === 'integer' ? 'a whole number' : 'a number'}, not "${text.slice(0, 40)}".`,
        };
    } else if (a.type === 'json') {
      try {
        value = JSON.parse(text);
      } catch {
        return { error: `${name} must be JSON, e.g. {"key": 1} or [1, 2].` };
      }
    } else value = text;
  }
  const allowed = a.allowed_values;
  if (allowed && allowed.length > 0) {
    const bad = (Array.isArray(value) ? (value as unknown[]) : [value]).find(
      (v) => !allowed.some((x) => x === v),
    );
    if (bad !== undefined)
      return {
        error: `${name} cannot be ${JSON.stringify(bad)}: choose one of ${allowed.map((x) => JSON.stringify(x)).join(', ')}.`,
      };
  }
  return { value };
}

/**
 * Whether an argument is asked: one that is `conditional_on` another is asked only while the other's value
 * compares to `conditional_value` as its operator says (numbers as numbers, other values as text). It has a
 * default (the store insists), which the algorithm uses when it is not asked.
 */
export function isAsked(
  a: StoreArgument,
  args: readonly StoreArgument[],
  fields: Readonly<Record<string, FieldValue>>,
): boolean {
  if (!a.conditional_on || !a.conditional_operator) return true;
  const other = args.find((x) => x.name === a.conditional_on);
  if (!other) return true;
  const parsed = parseArgument(other, fields[other.name] ?? initialValue(other));
  if (!('value' in parsed)) return false;
  const left = parsed.value;
  const right = a.conditional_value ?? '';
  const numeric = typeof left === 'number' && number(right, 'float') !== null;
  const l = numeric ? (left as number) : typeof left === 'string' ? left : JSON.stringify(left);
  const r = numeric ? Number(right) : right;
  switch (a.conditional_operator) {
    case '==':
      return l === r;
    case '!=':
      return l !== r;
    case '>':
      return l > r;
    case '<':
      return l < r;
    case '>=':
      return l >= r;
    case '<=':
      return l <= r;
  }
}

/**
 * The keyword arguments of the whole form, or the message of each argument that is wrong (by name). Arguments
 * not asked, and those for the user interface only, are not sent.
 */
export function collectArguments(
  args: readonly StoreArgument[],
  fields: Readonly<Record<string, FieldValue>>,
): { kwargs: Record<string, unknown> } | { errors: Record<string, string> } {
  const kwargs: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const a of args) {
    if (!isAsked(a, args, fields)) continue;
    const parsed = parseArgument(a, fields[a.name] ?? initialValue(a));
    if ('error' in parsed) errors[a.name] = parsed.error;
    else if ('value' in parsed && !a.is_frontend_only) kwargs[a.name] = parsed.value;
  }
  return Object.keys(errors).length > 0 ? { errors } : { kwargs };
}
