import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startTestApp } from '@federa/testing';

// A full disk under SQLite, for real: `PRAGMA max_page_count` caps the database file at the pages it has, so the
// next write that needs a page fails inside SQLite with SQLITE_FULL, as when the disk has no space left.

describe('a database whose disk is full (SQLite)', () => {
  it('answers a write 503 with Retry-After once the disk is full, and reads go on', async () => {
    const logs: { event?: string }[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
    const t = await startTestApp({ dialect: 'sqlite', log });
    try {
      const token = t.rootToken;
      const before = await t.api('GET', '/organization', { token });
      const { page_count: pages } = (
        await sql<{ page_count: number }>`PRAGMA page_count`.execute(t.ctx.dbh.db)
      ).rows[0]!;
      await sql.raw(`PRAGMA max_page_count = ${pages}`).execute(t.ctx.dbh.db);
      let answer = await t.api('POST', '/organization', { token, body: { name: 'o-0', country: 'NL' } });
      for (let i = 1; answer.status === 201 && i < 500; i++)
        answer = await t.api('POST', '/organization', {
          token,
          body: { name: `o-${i}`, country: 'NL', address1: 'x'.repeat(200) },
        });
      expect(answer.status, JSON.stringify(answer.body)).toBe(503);
      expect(answer.body).toEqual({
        msg: 'The database cannot store more data at the moment; retry later.',
        code: 'unavailable',
      });
      expect(answer.headers['retry-after']).toBe('5');
      expect(logs.some((l) => l.event === 'db.disk_full')).toBe(true);
      const after = await t.api('GET', '/organization', { token });
      expect(after.status).toBe(200);
      expect(before.status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('answers 503 on a real full disk too, where SQLite has rolled the failed transaction back itself', async () => {
    // A 2 MiB tmpfs holds the database file (the tests run as root on this project's machines). Creating an
    // organization is a transaction; SQLite ends it itself on SQLITE_FULL, and Kysely's rollback then failed with
    // "no transaction is active", which was answered 500 in place of the full disk.
    const dir = await mkdtemp(join(tmpdir(), 'federa-sqlite-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir]);
    const logs: { event?: string; msg?: string }[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
    try {
      const t = await startTestApp({
        dialect: 'sqlite',
        log,
        config: { uri: `sqlite:///${dir}/federa.sqlite` },
      });
      try {
        const token = t.rootToken;
        const long = (c: string) => c.repeat(250);
        let answer = { status: 201, body: null as unknown, headers: {} as Record<string, unknown> };
        for (let i = 0; answer.status === 201 && i < 2000; i++)
          answer = await t.api('POST', '/organization', {
            token,
            body: {
              name: `o-${i}`,
              country: 'NL',
              address1: long('x'),
              address2: long('y'),
              domain: long('z'),
            },
          });
        expect(answer.status, JSON.stringify(answer.body)).toBe(503);
        expect(answer.body).toEqual({
          msg: 'The database cannot store more data at the moment; retry later.',
          code: 'unavailable',
        });
        expect(answer.headers['retry-after']).toBe('5');
        expect(logs.some((l) => l.event === 'db.disk_full')).toBe(true);
        expect(logs.filter((l) => /rollback/.test(JSON.stringify(l)))).toEqual([]);
        expect((await t.api('GET', '/organization', { token })).status).toBe(200);
      } finally {
        await t.close();
      }
    } finally {
      execFileSync('umount', [dir]);
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
