import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { TEST_PG_ADMIN_URI, testDatabasesMade } from './database.js';
import { startTestApp } from './test-app.js';

/** Which of these PostgreSQL databases exist now. */
const existing = async (names: readonly string[]): Promise<string[]> => {
  const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URI });
  await admin.connect();
  try {
    const r = await admin.query<{ datname: string }>(
      'select datname from pg_database where datname = any($1) order by datname',
      [names],
    );
    return r.rows.map((row) => row.datname);
  } finally {
    await admin.end();
  }
};

describe('startTestApp on PostgreSQL', () => {
  it('drops its database on close', async () => {
    const before = testDatabasesMade().length;
    const t = await startTestApp({ dialect: 'postgres' });
    const made = testDatabasesMade().slice(before);
    expect(made).toHaveLength(1);
    expect(await existing(made)).toEqual(made);
    await t.close();
    expect(await existing(made)).toEqual([]);
  });

  it('a start refused by its configuration leaves no database behind', async () => {
    const before = testDatabasesMade().length;
    await expect(startTestApp({ dialect: 'postgres', config: { ui: { path: 'ui' } } })).rejects.toThrow(
      /ui\.path/,
    );
    const made = testDatabasesMade().slice(before);
    expect(made).toHaveLength(1);
    expect(await existing(made)).toEqual([]);
  });
});
