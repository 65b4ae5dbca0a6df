import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChangeClock } from './change-clock.js';

// SQLite's clock (db/change-clock.ts): a request looks at `PRAGMA data_version` once; what it keeps afterwards is
// decided from what this process knows (docs/performance.md).

describe('ChangeClock (SQLite)', () => {
  let dir: string;
  let file: string;
  let db: SQLite.Database;
  let looks: number;
  let clock: ChangeClock;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'federa-clock-'));
    file = join(dir, 'clock.sqlite');
    db = new SQLite(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (v INTEGER)');
    looks = 0;
    // The database as the clock sees it, counting its looks at data_version.
    const counting = {
      prepare: (text: string) => {
        const statement = db.prepare(text).pluck();
        return {
          pluck: () => ({
            get: () => {
              looks += 1;
              return statement.get();
            },
          }),
        };
      },
    } as unknown as SQLite.Database;
    clock = new ChangeClock();
    clock.attach(counting);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const commitByAnotherProcess = () => {
    const other = new SQLite(file);
    try {
      other.prepare('INSERT INTO t (v) VALUES (1)').run();
    } finally {
      other.close();
    }
  };

  it('gives the callers reading of a reading just taken without a second look, and peeks without any', () => {
    const reading = clock.now();
    expect(looks).toBe(1);
    const callers = clock.callers(reading);
    expect(clock.peek()).toBe(reading);
    expect(clock.callers(clock.peek())).toBe(callers);
    expect(looks).toBe(1);
  });

  it("sees another process's commit at the next reading, and moves both readings", () => {
    const reading = clock.now();
    const callers = clock.callers(reading);
    commitByAnotherProcess();
    // Not known without a look.
    expect(clock.peek()).toBe(reading);
    const next = clock.now();
    expect(next).not.toBe(reading);
    expect(clock.callers(next)).not.toBe(callers);
    expect(looks).toBe(2);
  });

  it('looks again for the callers reading of an older reading', () => {
    const reading = clock.now();
    clock.wrote(true); // a task posted: not a change of callers
    const callers = clock.callers(reading);
    expect(looks).toBe(2);
    expect(clock.callers(clock.now())).toBe(callers);
    clock.wrote(false); // a role changed
    expect(clock.peek()).not.toBe(reading);
    expect(clock.callers(clock.peek())).not.toBe(callers);
  });

  it("moves the callers reading for another process's commit seen through an older reading", () => {
    const reading = clock.now();
    const callers = clock.callers(reading);
    clock.wrote(true);
    commitByAnotherProcess();
    expect(clock.callers(reading)).not.toBe(callers);
  });
});
