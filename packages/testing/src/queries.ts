import type { TestApp } from './test-app.js';

/**
 * The SQL statements a test app sends to its database while `fn` runs, for tests that hold a request to its number
 * of round trips (docs/performance.md). Every statement Kysely runs passes its query executor, those of a
 * transaction too (an executor of their own, of the same class); the transaction's own BEGIN and COMMIT do not.
 */
export async function queriesDuring<T>(
  t: TestApp,
  fn: () => Promise<T>,
): Promise<{ result: T; queries: string[] }> {
  // The prototype that defines executeQuery, shared by the app's executor and its transactions' executors.
  let owner: object | null = t.ctx.dbh.db.getExecutor();
  while (owner && !Object.prototype.hasOwnProperty.call(owner, 'executeQuery'))
    owner = Object.getPrototypeOf(owner);
  if (!owner) throw new Error('the query executor has no executeQuery');
  const target = owner as { executeQuery: (query: { sql: string }, ...rest: unknown[]) => unknown };
  const original = target.executeQuery;
  const queries: string[] = [];
  target.executeQuery = function (this: unknown, query, ...rest) {
    queries.push(query.sql);
    return original.call(this, query, ...rest);
  };
  try {
    return { result: await fn(), queries };
  } finally {
    target.executeQuery = original;
  }
}
