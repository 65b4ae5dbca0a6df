import type { TestApp } from './test-app.js';

/** A statement as Kysely sent it: its SQL and its parameters. */
export interface SentStatement {
  sql: string;
  parameters: readonly unknown[];
}

/**
 * The SQL statements a test app sends to its database while `fn` runs, with their parameters, for tests that hold a
 * request to its round trips or look at how the database plans them (docs/performance.md). Every statement Kysely
 * runs passes its query executor, those of a transaction too (an executor of their own, of the same class); the
 * transaction's own BEGIN and COMMIT do not.
 */
export async function statementsDuring<T>(
  t: Pick<TestApp, 'ctx'>,
  fn: () => Promise<T>,
): Promise<{ result: T; statements: SentStatement[] }> {
  // The prototype that defines executeQuery, shared by the app's executor and its transactions' executors.
  let owner: object | null = t.ctx.dbh.db.getExecutor();
  while (owner && !Object.prototype.hasOwnProperty.call(owner, 'executeQuery'))
    owner = Object.getPrototypeOf(owner);
  if (!owner) throw new Error('the query executor has no executeQuery');
  const target = owner as { executeQuery: (query: SentStatement, ...rest: unknown[]) => unknown };
  const original = target.executeQuery;
  const statements: SentStatement[] = [];
  target.executeQuery = function (this: unknown, query, ...rest) {
    statements.push({ sql: query.sql, parameters: query.parameters });
    return original.call(this, query, ...rest);
  };
  try {
    return { result: await fn(), statements };
  } finally {
    target.executeQuery = original;
  }
}

/** The SQL of the statements sent while `fn` runs ({@link statementsDuring}), for counting round trips. */
export async function queriesDuring<T>(
  t: Pick<TestApp, 'ctx'>,
  fn: () => Promise<T>,
): Promise<{ result: T; queries: string[] }> {
  const { result, statements } = await statementsDuring(t, fn);
  return { result, queries: statements.map((s) => s.sql) };
}
