import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@federa/testing';

import { DatabaseHandle } from '../handle.js';
import { parseDatabaseUri } from '../uri.js';

// After every migration, on the dialect under test (FEDERA_TEST_DB): each foreign key has an index that starts with
// its column, and no two indexes of a table list the same columns. Without
// the first, deleting the referenced row or listing what refers to it reads the whole table; the second only costs
// every write.

interface Index {
  table: string;
  name: string;
  columns: string[];
  /** A unique index or a primary key: a rule as well as an index. */
  unique: boolean;
}

async function schemaOf(dbh: DatabaseHandle): Promise<{ foreignKeys: [string, string][]; indexes: Index[] }> {
  const db = dbh.db;
  if (dbh.dialect === 'sqlite') {
    const tables = await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%'`.execute(
      db,
    );
    const foreignKeys: [string, string][] = [];
    const indexes: Index[] = [];
    for (const { name: table } of tables.rows) {
      const fks = await sql<{ from: string }>`select "from" from pragma_foreign_key_list(${table})`.execute(
        db,
      );
      for (const fk of fks.rows) foreignKeys.push([table, fk.from]);
      const list = await sql<{
        name: string;
        unique: number;
      }>`select name, "unique" from pragma_index_list(${table})`.execute(db);
      for (const { name, unique } of list.rows) {
        const cols = await sql<{
          name: string;
        }>`select name from pragma_index_info(${name}) order by seqno`.execute(db);
        indexes.push({ table, name, columns: cols.rows.map((c) => c.name), unique: unique === 1 });
      }
      // A rowid table's integer primary key is its own index.
      const pk = await sql<{
        name: string;
      }>`select name from pragma_table_info(${table}) where pk = 1`.execute(db);
      if (pk.rows.length === 1)
        indexes.push({ table, name: 'rowid', columns: [pk.rows[0]!.name], unique: true });
    }
    return { foreignKeys, indexes };
  }
  const fks = await sql<{ table: string; column: string }>`
    select cl.relname as "table", a.attname as "column"
    from pg_constraint c
    join pg_class cl on cl.oid = c.conrelid
    join pg_namespace n on n.oid = cl.relnamespace
    join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any (c.conkey)
    where c.contype = 'f' and n.nspname = current_schema()`.execute(db);
  const idx = await sql<Index>`
    select t.relname as "table", i.relname as "name", ix.indisunique as "unique",
      array(select a.attname::text from unnest(ix.indkey) with ordinality as k(attnum, ord)
            join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum order by k.ord) as "columns"
    from pg_index ix
    join pg_class t on t.oid = ix.indrelid
    join pg_class i on i.oid = ix.indexrelid
    join pg_namespace n on n.oid = t.relnamespace
    where n.nspname = current_schema() and t.relname not like 'kysely_%'`.execute(db);
  return { foreignKeys: fks.rows.map((r) => [r.table, r.column]), indexes: idx.rows };
}

describe('the indexes of a migrated database', () => {
  let testDb: TestDatabase;
  let dbh: DatabaseHandle;
  let schema: Awaited<ReturnType<typeof schemaOf>>;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    dbh = new DatabaseHandle(parseDatabaseUri(testDb.uri, process.cwd()));
    await dbh.migrate();
    schema = await schemaOf(dbh);
  });
  afterAll(async () => {
    await dbh?.close();
    await testDb?.drop();
  });

  it('has an index starting with each foreign key column', () => {
    // The schema has foreign keys to check: a query that found none would pass the test below whatever it is.
    expect(schema.foreignKeys).toContainEqual(['user', 'organization_id']);
    expect(schema.foreignKeys).toContainEqual(['port', 'result_id']);
    const unindexed = schema.foreignKeys.filter(
      ([table, column]) => !schema.indexes.some((i) => i.table === table && i.columns[0] === column),
    );
    expect(unindexed).toEqual([]);
  });

  it('has no two indexes of a table over the same columns, nor one that starts another', () => {
    const redundant: string[] = [];
    for (const a of schema.indexes)
      for (const b of schema.indexes)
        if (
          a !== b &&
          a.table === b.table &&
          a.columns.length <= b.columns.length &&
          a.columns.every((c, k) => b.columns[k] === c) &&
          // A unique index or a primary key is a rule as well as an index: it stays even when another covers it.
          !a.unique &&
          (a.columns.length < b.columns.length || a.name > b.name)
        )
          redundant.push(`${a.table}.${a.name} (${a.columns.join(', ')}) within ${b.name}`);
    expect(redundant).toEqual([]);
  });
});
