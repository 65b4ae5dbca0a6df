import { describe, expect, it } from 'vitest';
import { isCallerNeutral } from './statement-cache.js';

// Which writes leave the read cache's kept callers in place (http/read-cache.ts): a wrong "neutral" would let a
// caller outlive a change of its rules, so anything not known to be harmless counts as a change.
describe('isCallerNeutral', () => {
  it('takes the writes of tasks, runs and presence as neutral', () => {
    for (const text of [
      'insert into "task" ("name", "image") values (?, ?) returning "id"',
      'insert into "result" ("task_id", "organization_id") values (?, ?), (?, ?)',
      'update "result" set "status" = ?, "log" = ? where "id" = ? and "finished_at" is null',
      'delete from "task" where "id" = ?',
      'delete from "port" where "result_id" = ?',
      'insert into "result_chunk" ("result_id", "data") values (?, ?)',
      'update "user" set "last_seen" = ? where "id" = ?',
      'update "node" set "status" = ?, "last_seen" = ? where "id" = ?',
      'update "node" set "status" = ? where "status" = ?',
    ])
      expect(isCallerNeutral(text), text).toBe(true);
  });

  it('takes every other write as a change of callers', () => {
    for (const text of [
      'delete from "role_rule" where "role_id" = ? and "rule_id" = ?',
      'insert into "user_role" ("user_id", "role_id") values (?, ?)',
      'update "user" set "password" = ? where "id" = ?',
      'update "user" set "last_seen" = ?, "organization_id" = ? where "id" = ?',
      'update "node" set "collaboration_id" = ? where "id" = ?',
      'update "session" set "ended_at" = ? where "id" = ?',
      'delete from "member" where "collaboration_id" = ?',
      'insert into "task_extra" ("x") values (?)',
      'UPDATE task SET name = ?',
      'delete from "organization" where "id" = ?',
    ])
      expect(isCallerNeutral(text), text).toBe(false);
  });
});
