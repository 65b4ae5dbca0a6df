import type { SqliteDatabase, SqliteStatement } from 'kysely';
import type SQLite from 'better-sqlite3';
import type { ChangeClock } from './change-clock.js';

/**
 * Statements whose writes cannot change a caller (the user or node a token names, its session, roles, rules and
 * collaborations): those of tasks and runs (and what a delete of them cascades to: runs, ports, stored pieces), and
 * the presence columns of users and nodes. A caller kept by the read cache survives them (http/read-cache.ts); a
 * container's caller, which depends on its run, is kept by the clock of every write. Anything else, raw SQL
 * included, counts as a change of callers.
 */
const CALLER_NEUTRAL =
  /^(?:insert into|update|delete from) "(?:task|result|result_chunk|port)" |^update "(?:user|node)" set "(?:last_seen|status)" = \?(?:, "(?:last_seen|status)" = \?)? where /;

export const isCallerNeutral = (text: string): boolean => CALLER_NEUTRAL.test(text);

/** A statement that writes, as Kysely's SQLite driver uses it, counting each run on the clock. */
function counted(statement: SQLite.Statement, clock: ChangeClock, callerNeutral: boolean): SqliteStatement {
  return {
    reader: statement.reader,
    all(parameters) {
      try {
        return statement.all(parameters);
      } finally {
        clock.wrote(callerNeutral);
      }
    },
    run(parameters) {
      try {
        return statement.run(parameters);
      } finally {
        clock.wrote(callerNeutral);
      }
    },
    iterate(parameters) {
      clock.wrote(callerNeutral);
      return statement.iterate(parameters);
    },
  };
}

/**
 * Kysely's `rollback` of a failed transaction, made only while one is open: on some errors (a full disk:
 * SQLITE_FULL, SQLITE_IOERR) SQLite has rolled the transaction back itself, and a `rollback` then fails with
 * "cannot rollback - no transaction is active", which Kysely throws in place of the error that caused it (a full
 * disk answered 500 instead of 503).
 */
function rollbackIfOpen(statement: SQLite.Statement, database: SQLite.Database): SqliteStatement {
  return {
    reader: false,
    all: (parameters) => statement.all(parameters),
    run: (parameters) =>
      database.inTransaction ? statement.run(parameters) : { changes: 0, lastInsertRowid: 0 },
    iterate: (parameters) => statement.iterate(parameters),
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
        // A rollback counts as reading (SQLite says so of transaction control): it is told apart first.
        statement = /^\s*rollback\s*$/i.test(text)
          ? rollbackIfOpen(compiled, database)
          : compiled.readonly
            ? compiled
            : counted(compiled, clock, isCallerNeutral(text));
        statements.set(text, statement);
      }
      return statement;
    },
    close: () => database.close(),
  };
}
