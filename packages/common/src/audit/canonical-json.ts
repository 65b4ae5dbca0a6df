/**
 * Canonical JSON (docs/audit.md): object keys sorted by code unit, no whitespace, `undefined` members left out.
 * The same value always gives the same bytes, so a hash of it can be recomputed from a parsed copy.
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON has no form for the number ${value}`);
      return JSON.stringify(value);
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
      throw new TypeError(`canonical JSON has no form for a ${typeof value}`);
  }
}
