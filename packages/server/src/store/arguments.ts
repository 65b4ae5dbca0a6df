import { matchesType, type ArgumentDescription } from './description.js';

/** An argument of a task that does not fit its function's description. */
export class ArgumentError extends Error {
  constructor(
    readonly argument: string,
    message: string,
  ) {
    super(message);
  }
}

const TYPE_WORDS: Record<string, string> = {
  column: 'a column name (string)',
  column_list: 'a list of column names (strings)',
  string: 'a string',
  string_list: 'a list of strings',
  integer: 'an integer',
  integer_list: 'a list of integers',
  float: 'a number',
  float_list: 'a list of numbers',
  boolean: 'true or false',
  json: 'any JSON value',
  organization: 'an organization id (integer)',
  organization_list: 'a list of organization ids (integers)',
};

/**
 * Checks a task's keyword arguments against the function's described arguments: every argument without a
 * default is given, each given one is of its type and among its allowed values, and none is unknown.
 * Frontend-only arguments never reach the algorithm and are not checked.
 */
export function checkArguments(
  described: readonly ArgumentDescription[],
  given: Record<string, unknown>,
): void {
  const known = described.filter((a) => !a.is_frontend_only);
  for (const name of Object.keys(given)) {
    if (!known.some((a) => a.name === name))
      throw new ArgumentError(
        name,
        `argument '${name}' is not an argument of this function (its arguments: ${known.map((a) => a.name).join(', ') || 'none'})`,
      );
  }
  for (const a of known) {
    if (!(a.name in given)) {
      if (a.has_default_value || a.conditional_on) continue;
      throw new ArgumentError(a.name, `argument '${a.name}' is required: ${TYPE_WORDS[a.type]} expected`);
    }
    const value = given[a.name];
    if (!matchesType(a.type, value))
      throw new ArgumentError(
        a.name,
        `argument '${a.name}' must be ${TYPE_WORDS[a.type]} (type ${a.type}), got ${describe(value)}`,
      );
    const allowed = a.allowed_values;
    if (allowed && allowed.length > 0) {
      const values = Array.isArray(value) ? (value as unknown[]) : [value];
      const bad = values.find((v) => !allowed.some((x) => x === v));
      if (bad !== undefined)
        throw new ArgumentError(
          a.name,
          `argument '${a.name}' has ${JSON.stringify(bad)}, which is not one of its allowed values: ${allowed.map((x) => JSON.stringify(x)).join(', ')}`,
        );
    }
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`.slice(0, 80);
}
