/** A deep copy of a schema without any `$id` (symbol keys such as TypeBox's `Kind` are kept). */
export function withoutIds<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(withoutIds) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const source = schema as Record<string | symbol, unknown>;
  const out: Record<string | symbol, unknown> = {};
  for (const key of Reflect.ownKeys(source)) if (key !== '$id') out[key] = withoutIds(source[key]);
  return out as T;
}
