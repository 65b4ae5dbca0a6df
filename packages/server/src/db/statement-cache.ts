import type { SqliteDatabase, SqliteStatement } from 'kysely';
import type SQLite from 'better-sqlite3';
import type { ChangeClock } from './change-clock.js';

/** A statement that writes, as Kysely's SQLite driver uses it, counting each run on the clock. */
function counted(statement: SQLite.Statement, clock: ChangeClock): SqliteStatement {
  return {
    reader: statement.reader,
    all(parameters) {
      try {
        return statement.all(parameters);
      } finally {
        clock.wrote();
      }
    },
    run(parameters) {
      try {
        return statement.run(parameters);
      } finally {
        clock.wrote();
      }
    },
    iterate(parameters) {
      clock.wrote();
      return statement.iterate(parameters);
    },
  };
}

/**
 * better-sqlite3 compiles a statement on every `prepare`; Kysely prepares each query anew. Keeping the compiled
 * statements by SQL text (queries are parameterized, so the set of texts is small) saves that work per query.
 * Statements that write are counted on the clock.
 */
export function withStatementCache(database: SQLite.Database, clock: ChangeClock): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  clock.attach(database);
  return {
    prepare(text: string): SqliteStatement {
      let statement = statements.get(text);
      if (!statement) {
        if (statements.size >= 1000) statements.clear();
        const compiled = database.prepare(text);
        statement = compiled.readonly ? compiled : counted(compiled, clock);
        statements.set(text, statement);
      }
      return statement;
    },
    close: () => database.close(),
  };
}
