import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@federa/testing';

import { RULES } from '../../auth/rules.js';
import { parseServerConfig } from '../../config/load.js';
import { insertNode } from '../../repositories/node.js';
import { bootstrap } from '../bootstrap.js';
import { nextRunId } from '../../repositories/task/rows.js';
import { DatabaseHandle } from '../handle.js';
import { parseDatabaseUri } from '../uri.js';
import { FederaMigrations } from './index.js';

// Migrations that meet data written before them: each test starts from a database of its own, migrated up to the
// migration before, writes what an older server wrote, then migrates the rest of the way.

/** A database of its own for the tests of one `describe`, and a migrator of it. */
function ownDatabase(): { dbh: () => DatabaseHandle; migrator: () => Migrator } {
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
  return {
    dbh: () => dbh,
    migrator: () => new Migrator({ db: dbh.db, provider: new FederaMigrations(dbh.dialect) }),
  };
}

/** An organization, as the tables of every version since 0001 take one. */
const hospital = (db: DatabaseHandle['db']) =>
  db
    .insertInto('organization')
    .values({ name: 'Hospital', public_key: '' })
    .returning('id')
    .executeTakeFirstOrThrow();

// A database that had tasks before the counts were kept (0012-task-count.ts) starts with the right counts, and
// before run ids came from a sequence on PostgreSQL (0013-run-sequence.ts) goes on after its highest run.

describe('migrations 0012 and 0013: the tasks of an existing database', () => {
  const own = ownDatabase();

  it('counts the tasks already there, per collaboration, and starts new runs after the highest', async () => {
    const dbh = own.dbh();
    const migrator = own.migrator();
    const before = await migrator.migrateTo('0011-foreign-key-indexes');
    expect(before.error).toBeUndefined();
    const db = dbh.db;
    const org = await hospital(db);
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
    // The next run follows the highest there was, and the one after it.
    const runs = [await nextRunId(db, dbh.dialect)];
    await db.insertInto('task').values(task(collabs[2]!, runs[0]!)).execute();
    runs.push(await nextRunId(db, dbh.dialect));
    await db.insertInto('task').values(task(collabs[1]!, runs[1]!)).execute();
    expect(runs).toEqual([6, 7]);
    // From then on the triggers keep the counts.
    const after = await db.selectFrom('task_count').selectAll().orderBy('collaboration_id').execute();
    expect(after.map((r) => [r.collaboration_id, Number(r.n)])).toEqual([
      [collabs[0], 3],
      [collabs[1], 2],
      [collabs[2], 1],
    ]);
  });
});

// A database that holds two nodes of one organization in one collaboration (written before the rule,
// 0014-one-node-per-organization.ts) is left as it is, and the server says which nodes they are; once one is
// deleted, the rule is added and holds.

describe('migration 0014: one node per organization in a collaboration', () => {
  const own = ownDatabase();

  it('names the nodes an organization has twice, and adds the rule once only one is left', async () => {
    const dbh = own.dbh();
    const migrator = own.migrator();
    expect((await migrator.migrateTo('0013-run-sequence')).error).toBeUndefined();
    const db = dbh.db;
    const org = await hospital(db);
    const collab = await db
      .insertInto('collaboration')
      .values({ name: 'Study', encrypted: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const node = (name: string) =>
      insertNode(db, { name, organizationId: org.id, collaborationId: collab.id, apiKeyHash: name });
    const first = await node('first');
    const second = await node('second');

    await expect(dbh.migrate()).rejects.toThrow(
      `organization ${org.id} in collaboration ${collab.id}: nodes ${first}, ${second}`,
    );
    // Nothing was changed: both nodes are there.
    expect(await db.selectFrom('node').select('id').orderBy('id').execute()).toEqual([
      { id: first },
      { id: second },
    ]);

    await db.deleteFrom('node').where('id', '=', second).execute();
    await dbh.migrate();
    await expect(node('third')).rejects.toMatchObject({
      code: dbh.dialect === 'postgres' ? '23505' : 'SQLITE_CONSTRAINT_UNIQUE',
    });
  });
});

// A database made before vantage6 4.x's node VIEW COLLABORATION rule (0030-node-view-collaboration.ts) gets it
// after the rules it holds, and its default roles get it as the start-up makes new ones; an organization's own
// role of the same name and a default role that already holds it are left as they are.

describe('migration 0030: node VIEW COLLABORATION for the default roles of an existing database', () => {
  const own = ownDatabase();

  it('adds the rule after the others and grants it to Viewer, Researcher and the admins, once', async () => {
    const dbh = own.dbh();
    const migrator = own.migrator();
    expect((await migrator.migrateTo('0029-store-catalogue-notify')).error).toBeUndefined();
    const db = dbh.db;
    // What a server before the rule made at its start: the catalogue without it, and the default roles.
    await bootstrap(db, parseServerConfig({ root_user: { email: 'r@example.org' } }, 'server.yaml'));
    const isNodeViewCol = { name: 'node', operation: 'VIEW', scope: 'COLLABORATION' } as const;
    await db
      .deleteFrom('rule')
      .where('name', '=', isNodeViewCol.name)
      .where('operation', '=', isNodeViewCol.operation)
      .where('scope', '=', isNodeViewCol.scope)
      .execute();
    const org = await hospital(db);
    await db
      .insertInto('role')
      .values({ name: 'Viewer', description: 'an organization role', organization_id: org.id })
      .execute();
    const highest = await db
      .selectFrom('rule')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirstOrThrow();

    await dbh.migrate();
    await bootstrap(db, parseServerConfig({ root_user: { email: 'r@example.org' } }, 'server.yaml'));

    const rule = await db
      .selectFrom('rule')
      .select('id')
      .where('name', '=', 'node')
      .where('scope', '=', 'COLLABORATION')
      .executeTakeFirstOrThrow();
    expect(rule.id).toBeGreaterThan(Number(highest.id));
    expect(await db.selectFrom('rule').select('id').execute()).toHaveLength(RULES.length);
    const holders = await db
      .selectFrom('role_rule')
      .innerJoin('role', 'role.id', 'role_rule.role_id')
      .select(['role.name', 'role.organization_id'])
      .where('role_rule.rule_id', '=', rule.id)
      .orderBy('role.name')
      .execute();
    expect(holders).toEqual(
      ['Collaboration Admin', 'Organization Admin', 'Researcher', 'Root', 'Viewer'].map((name) => ({
        name,
        organization_id: null,
      })),
    );
  });
});
