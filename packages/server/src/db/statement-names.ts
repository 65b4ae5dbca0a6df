/**
 * PostgreSQL: names for the texts of the queries the server runs again and again, so that each connection parses
 * them once and keeps them as prepared statements (pg sends a named query's text only the first time on a
 * connection). PostgreSQL then skips the parsing and analysis of every later run, and, once a generic plan proves
 * as good as the custom ones, the planning: on this machine a caller's query with its subqueries went from about
 * 410 to 280 µs per round trip (measured with bench/api-throughput --postgres).
 *
 * What gets a name: a query with parameters (pg's extended protocol, so one statement per text) whose text was
 * seen at least twice. One-off texts are never named, and the number of names is capped, since every connection
 * of the pool keeps each statement it prepared until it closes.
 *
 * Behind a pooler that hands a session's connection to another client between transactions (PgBouncer in
 * transaction mode before 1.21), statements prepared on one server connection are missing on another: turn
 * `database.prepared_statements` off there (docs/server-configuration.md).
 */
export class StatementNames {
  readonly #names = new Map<string, string>();
  /** Texts seen once, waiting for a second sighting. */
  readonly #seenOnce = new Set<string>();
  readonly #max: number;

  constructor(max = 500) {
    this.#max = max;
  }

  /** The name of `text` (run with `parameterCount` parameters), or undefined when it is to run unnamed. */
  nameOf(text: string, parameterCount: number): string | undefined {
    const name = this.#names.get(text);
    if (name !== undefined || parameterCount === 0) return name;
    if (this.#names.size >= this.#max) return undefined;
    if (!this.#seenOnce.has(text)) {
      if (this.#seenOnce.size >= 5_000) this.#seenOnce.clear();
      this.#seenOnce.add(text);
      return undefined;
    }
    this.#seenOnce.delete(text);
    const named = `federa_${this.#names.size + 1}`;
    this.#names.set(text, named);
    return named;
  }

  /** How many texts have a name. */
  get size(): number {
    return this.#names.size;
  }
}

/**
 * Errors after which a connection's prepared statement cannot be used again: the row type of a `select *` changed
 * under it (a migration by another instance), or the statement is gone (a pooler in between, `DISCARD ALL`). The
 * query is then run again unnamed, and its connection is closed when released.
 */
export function isStalePreparedStatement(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === '26000' ||
    (code === '0A000' &&
      typeof message === 'string' &&
      /cached plan must not change result type/.test(message))
  );
}
