/**
 * Canonical JSON (docs/audit.md): object keys sorted by code unit, no whitespace, `undefined` members left out.
 * The same value always gives the same bytes, so a hash of it can be recomputed from a parsed copy.
 *
 * Every value has a form, so that whatever a request carried can be recorded: a number JSON cannot hold
 * (`Infinity`, `NaN`) and a bigint are written as the string of their text, anything else JSON has no form for
 * (a function, a symbol) as `null`. Each of these is what the parsed copy gives back, so the hash still matches.
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : JSON.stringify(String(value));
    case 'bigint':
      return JSON.stringify(value.toString());
    case 'object': {
      if (Array.isArray(value))
        return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
      const record = value as Record<string, unknown>;
      const members = Object.keys(record)
        .filter((k) => record[k] !== undefined)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`);
      return `{${members.join(',')}}`;
    }
    default:
      return 'null';
  }
}
