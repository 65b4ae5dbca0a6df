import { sql, type Expression, type RawBuilder } from 'kysely';

/**
 * Aggregates the ids a (sub)query yields into one text value such as `"12,3,7"` (in no particular order), or null
 * when there are none; {@link parseIdList} reads it back in ascending order. Relation lists (an organization's
 * results, a user's rules) are loaded this way: better-sqlite3 spends about a microsecond building each row object,
 * so one row per parent instead of one row per related id is several times faster on long lists. `string_agg` is
 * the same on PostgreSQL and SQLite (3.44+); sorting in JavaScript is cheaper than SQLite's sort inside the
 * aggregate.
 */
export function idList(column: Expression<number | null>): RawBuilder<string | null> {
  return sql<string | null>`string_agg(cast(${column} as text), ',')`;
}

/** The ids of an {@link idList} value, ascending. */
export function parseIdList(text: string | null | undefined): number[] {
  if (!text) return [];
  const ids: number[] = [];
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 44 /* , */) {
      ids.push(n);
      n = 0;
    } else n = n * 10 + (c - 48);
  }
  ids.push(n);
  return ids.sort((a, b) => a - b);
}
