/** Limits on what a node may store through `node_info_update`, so a node cannot fill the database. */
export const NODE_INFO_LIMITS = { keys: 32, keyLength: 64, itemsPerKey: 500, valueLength: 1000 } as const;

/** A value as text, the way vantage6 (Python `str()`) stores it: booleans `True`/`False`, null `None`. */
const asText = (value: unknown): string => {
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
};

/**
 * The `(key, value)` rows of a `node_info_update` payload (docs/socket-protocol.md#events-from-clients): one row per scalar, one row per
 * element of a list. Returns null when the payload is not an object.
 */
export function nodeInfoRows(payload: unknown): { key: string; value: string }[] | null {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null;
  const rows: { key: string; value: string }[] = [];
  for (const [key, value] of Object.entries(payload).slice(0, NODE_INFO_LIMITS.keys)) {
    if (key.length === 0 || key.length > NODE_INFO_LIMITS.keyLength) continue;
    const values = Array.isArray(value) ? value.slice(0, NODE_INFO_LIMITS.itemsPerKey) : [value];
    for (const v of values) rows.push({ key, value: asText(v).slice(0, NODE_INFO_LIMITS.valueLength) });
  }
  return rows;
}
