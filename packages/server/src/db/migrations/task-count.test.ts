import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@federa/testing';

import { DatabaseHandle } from '../handle.js';
import { parseDatabaseUri } from '../uri.js';
import { FederaMigrations } from './index.js';

// A database that had tasks before the counts were kept (0012-task-count.ts) starts with the right counts.

describe('migration 0012: task counts of an existing database', () => {
  let testDb: TestDatabase;
  let dbh: DatabaseHandle;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    dbh = new DatabaseHandle(parseDatabaseUri(testDb.uri, process.cwd()));
  });
  afterAll(async () => {
    await dbh?.close();
    await testDb?.drop();
  });

  it('counts the tasks already there, per collaboration', async () => {
    const migrator = new Migrator({ db: dbh.db, provider: new FederaMigrations(dbh.dialect) });
    const before = await migrator.migrateTo('0011-foreign-key-indexes');
    expect(before.error).toBeUndefined();
    const db = dbh.db;
    const org = await db
      .insertInto('organization')
      .values({ name: 'Hospital', public_key: '' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const collabs: number[] = [];
    for (const name of ['one', 'two', 'empty']) {
      const c = await db
        .insertInto('collaboration')
        .values({ name, encrypted: 0 })
        .returning('id')
        .executeTakeFirstOrThrow();
      collabs.push(c.id);
    }
    const task = (collaboration_id: number | null, run_id: number) => ({
      name: 't',
      description: '',
      image: 'i',
      collaboration_id,
      run_id,
      initiator_id: org.id,
      created_at: new Date().toISOString(),
    });
    await db
      .insertInto('task')
      .values([
        task(collabs[0]!, 1),
        task(collabs[0]!, 2),
        task(collabs[0]!, 3),
        task(collabs[1]!, 4),
        task(null, 5),
      ])
      .execute();

    await dbh.migrate();
    const counts = await db.selectFrom('task_count').selectAll().orderBy('collaboration_id').execute();
    expect(counts.map((r) => [r.collaboration_id, Number(r.n)])).toEqual([
      [collabs[0], 3],
      [collabs[1], 1],
    ]);
    // From then on the triggers keep them.
    await db
      .insertInto('task')
      .values([task(collabs[2]!, 6), task(collabs[1]!, 7)])
      .execute();
    const after = await db.selectFrom('task_count').selectAll().orderBy('collaboration_id').execute();
    expect(after.map((r) => [r.collaboration_id, Number(r.n)])).toEqual([
      [collabs[0], 3],
      [collabs[1], 2],
      [collabs[2], 1],
    ]);
  });
});
