/**
 * Whether a database error is a unique-constraint violation, on SQLite and PostgreSQL: two requests raced for
 * something the database allows once (a username or e-mail address, an organization's node in a collaboration),
 * and the later one is answered as if it had found the first in its check.
 */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown } | null;
  return (
    e !== null &&
    typeof e === 'object' &&
    (e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
  );
}
