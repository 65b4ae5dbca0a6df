import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

// A write the database refuses for a value it holds once, on a route that does not name the value itself (app.ts,
// the error handler): `conflict` (400, docs/errors.md), not 500, and nothing of the database in the answer.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  // A rule only this test's database has: role names unique, so that POST /role meets one it does not check.
  await sql`create unique index test_role_name on role (name)`.execute(t.ctx.dbh.db);
});
afterAll(async () => t.close());

describe('a write that would repeat a unique value', () => {
  it('is answered as a conflict, without the constraint, table or SQL', async () => {
    const body = { name: 'unique analyst', description: '', rules: [], organization_id: null };
    const first = await t.api('POST', '/role', { token: t.rootToken, body });
    expect(first.status).toBe(201);
    const second = await t.api('POST', '/role', { token: t.rootToken, body });
    expect(second.status).toBe(400);
    expect(second.body).toEqual({
      msg: 'This would repeat a value that must be unique, such as a name, and is taken already; the request was refused.',
      code: 'conflict',
    });
    expect(second.raw.body).not.toMatch(/test_role_name|role|insert|sqlite|duplicate|constraint/i);
  });
});
