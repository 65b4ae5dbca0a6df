import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Stands for argument `arg` of a prepared query, or for its item `item` when the argument is an array. */
class Placeholder {
  constructor(
    readonly arg: number,
    readonly item: number | null,
  ) {}
}

/** Argument of a prepared query: a value, or an array of values (for `in`). */
export type PreparedArg = string | number | readonly (string | number)[];

/**
 * A query that Kysely builds and compiles once (per database handle and per length of its array arguments) and
 * then runs with new values. Building the operation tree and compiling it costs more than SQLite takes to run a
 * small query (tens of µs for a select with subqueries), so the queries every request runs (authentication, the
 * serializers' loaders) are written this way.
 *
 * `build` gets placeholders in place of the arguments: it may use an argument only as a value (`where`, `in`,
 * `limit`…), never to decide the shape of the query (no `if`, no `is null` on it). An array argument becomes one
 * placeholder per item.
 */
export function prepared<A extends PreparedArg[], O>(
  build: (db: Kysely<Database>, ...args: A) => Compilable<O>,
): (db: Kysely<Database>, ...args: A) => Promise<O[]> {
  const compiledByDb = new WeakMap<Kysely<Database>, Map<string, CompiledQuery<O>>>();
  return async (db, ...args) => {
    let compiledByShape = compiledByDb.get(db);
    if (!compiledByShape) compiledByDb.set(db, (compiledByShape = new Map()));
    const shape = args.map((a) => (Array.isArray(a) ? a.length : '.')).join(',');
    let compiled = compiledByShape.get(shape);
    if (!compiled) {
      const placeholders = args.map((a, i) =>
        Array.isArray(a) ? a.map((_, j) => new Placeholder(i, j)) : new Placeholder(i, null),
      );
      compiled = build(db, ...(placeholders as unknown as A)).compile();
      if (compiledByShape.size >= 100) compiledByShape.clear();
      compiledByShape.set(shape, compiled);
    }
    const parameters = compiled.parameters.map((p) => {
      if (!(p instanceof Placeholder)) return p;
      const value = args[p.arg];
      return p.item === null ? value : (value as readonly unknown[])[p.item];
    });
    const query: CompiledQuery<O> = { ...compiled, parameters };
    return (await db.executeQuery(query)).rows;
  };
}
