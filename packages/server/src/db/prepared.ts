import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * Stands for argument `arg` (a position, or a name for named arguments) of a prepared query, or for its item
 * `item` when the argument is an array.
 */
export class Placeholder {
  constructor(
    readonly arg: number | string,
    readonly item: number | null,
  ) {}
}

/** The placeholders of one argument: one, or one per item of an array. */
export const placeholdersOf = (arg: number | string, value: PreparedArg): Placeholder | Placeholder[] =>
  Array.isArray(value) ? value.map((_, j) => new Placeholder(arg, j)) : new Placeholder(arg, null);

/** A compiled query with its placeholders replaced by the values `valueOf` gives. */
export function bound<O>(
  compiled: CompiledQuery<O>,
  valueOf: (arg: number | string) => unknown,
): CompiledQuery<O> {
  const parameters = compiled.parameters.map((p) => {
    if (!(p instanceof Placeholder)) return p;
    const value = valueOf(p.arg);
    return p.item === null ? value : (value as readonly unknown[])[p.item];
  });
  return { ...compiled, parameters };
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
      const placeholders = args.map((a, i) => placeholdersOf(i, a));
      compiled = build(db, ...(placeholders as unknown as A)).compile();
      if (compiledByShape.size >= 100) compiledByShape.clear();
      compiledByShape.set(shape, compiled);
    }
    return (await db.executeQuery(bound(compiled, (i) => args[i as number]))).rows;
  };
}
