/**
 * A list endpoint answers a bare array, or `{data: [...], links}` with `include=metadata` (docs/api.md#pagination). Anything
 * else (an error body, a proxy's HTML page) is an empty list: callers that must tell the two apart check the
 * status first.
 */
export function listOf<T>(body: unknown): T[] {
  if (Array.isArray(body)) return body as T[];
  if (body !== null && typeof body === 'object') {
    const data = (body as { data?: unknown }).data;
    if (Array.isArray(data)) return data as T[];
  }
  return [];
}

/** The id of a reference, or of the plain id some forms carry instead (the task-result form). */
export const refId = (r: { readonly id: number } | number | null | undefined): number | undefined =>
  typeof r === 'number' ? r : r?.id;
