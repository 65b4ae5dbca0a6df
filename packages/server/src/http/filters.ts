/**
 * Query-string helpers for listing filters (docs/api.md#filters).
 */

/** A boolean flag: `false`, `False`, `0`, `no` and empty are false; any other value is true. */
export const truthy = (value: unknown): boolean => {
  if (value === undefined || value === null) return false;
  const v = String(Array.isArray(value) ? value[0] : value)
    .trim()
    .toLowerCase();
  return !(v === '' || v === 'false' || v === '0' || v === 'no');
};

/** The first value of a possibly repeated parameter. */
export const first = <T>(value: T | T[] | undefined): T | undefined =>
  Array.isArray(value) ? value[0] : value;
