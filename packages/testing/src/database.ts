import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The dialect the database and API tests run against: `FEDERA_TEST_DB=sqlite|postgres` (default sqlite). */
export const TEST_DIALECT: 'sqlite' | 'postgres' =
  process.env.FEDERA_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

/** PostgreSQL server for tests (trust auth on this machine). */
export const TEST_PG_ADMIN_URI =
  process.env.FEDERA_TEST_PG_URI ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  uri: string;
  drop(): Promise<void>;
}

const made: string[] = [];

/** The PostgreSQL databases this process made with {@link createTestDatabase}, oldest first (dropped or not). */
export const testDatabasesMade = (): readonly string[] => [...made];

/** A throwaway database: in-memory SQLite, or a fresh PostgreSQL database dropped afterwards. */
export async function createTestDatabase(
  dialect: 'sqlite' | 'postgres' = TEST_DIALECT,
): Promise<TestDatabase> {
  if (dialect === 'sqlite') return { uri: 'sqlite://', drop: async () => undefined };
  const name = `federa_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URI });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    made.push(name);
  } finally {
    await admin.end();
  }
  const uri = TEST_PG_ADMIN_URI.replace(/\/[^/]*$/, `/${name}`);
  return {
    uri,
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_PG_ADMIN_URI });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
