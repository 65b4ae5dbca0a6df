/**
 * The databases a task asks for (docs/api.md#tasks): a list of `{label, type, parameters}` as vantage6 4.x sends
 * it, or the single label `database` of the 3.x contract. Both are stored and handed to the node, which uses the
 * list when it has one and the single label otherwise.
 */
import { Type, type Static } from '@sinclair/typebox';

/** Longest database label (labels are short names in a node's configuration). */
export const MAX_DATABASE_LABEL_LENGTH = 256;
/** Most databases one task may ask for. */
export const MAX_TASK_DATABASES = 32;

export const TaskDatabaseSchema = Type.Object(
  {
    label: Type.String({
      minLength: 1,
      maxLength: MAX_DATABASE_LABEL_LENGTH,
      // A label becomes part of environment variable names (`<LABEL>_DATABASE_URI`).
      pattern: '^[A-Za-z0-9_-]+$',
      description: "a database label of the receiving nodes' configuration",
    }),
    type: Type.Optional(
      Type.String({ maxLength: 64, description: 'the database type the algorithm expects (csv, sql, …)' }),
    ),
    parameters: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z0-9_]{1,64}$' }), Type.Unknown(), {
        additionalProperties: false,
        description: 'for the algorithm: `query`, `sheet_name`, `preprocessing`, …',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TaskDatabase = Static<typeof TaskDatabaseSchema>;

export const TaskDatabasesSchema = Type.Array(TaskDatabaseSchema, {
  maxItems: MAX_TASK_DATABASES,
  description: 'the databases the task uses, in the order the algorithm reads them',
});

/**
 * The databases a task asks for, from its stored or wire fields: `databases` when it lists any, else the one label
 * `database` (empty or absent: `default`).
 */
export function requestedDatabases(task: {
  readonly database?: string | null | undefined;
  readonly databases?: readonly TaskDatabase[] | null | undefined;
}): TaskDatabase[] {
  if (task.databases && task.databases.length > 0) return task.databases.map((d) => ({ ...d }));
  const label = task.database && task.database.trim() !== '' ? task.database : 'default';
  return [{ label }];
}
