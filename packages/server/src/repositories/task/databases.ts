import type { TaskDatabase } from '@federa/common';

/** A task's `databases` as stored in `task.databases` (migrations/0021-task-databases.ts): JSON text, or null. */
export const storedDatabases = (list: readonly TaskDatabase[] | undefined): string | null =>
  list && list.length > 0 ? JSON.stringify(list) : null;

/**
 * The stored `databases` read back; null when the task named only `database`. The text was written by
 * {@link storedDatabases} from a checked body; a value that does not read as a list is shown as null rather than
 * failing every listing that holds the task.
 */
export function readDatabases(text: string | null): TaskDatabase[] | null {
  if (text === null || text === '') return null;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as TaskDatabase[]) : null;
  } catch {
    return null;
  }
}
