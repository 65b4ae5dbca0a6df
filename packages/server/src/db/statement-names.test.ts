import { describe, expect, it } from 'vitest';
import { isStalePreparedStatement, StatementNames } from './statement-names.js';

describe('StatementNames', () => {
  it('names a text with parameters at its second sighting, the same name ever after', () => {
    const names = new StatementNames();
    expect(names.nameOf('select $1', 1)).toBeUndefined();
    const name = names.nameOf('select $1', 1);
    expect(name).toMatch(/^federa_\d+$/);
    expect(names.nameOf('select $1', 1)).toBe(name);
    expect(names.nameOf('select $1 + 1', 1)).toBeUndefined();
  });

  it('never names a text without parameters (it may hold several statements)', () => {
    const names = new StatementNames();
    for (let i = 0; i < 3; i++)
      expect(names.nameOf('create table a (x int); create table b (y int)', 0)).toBeUndefined();
    expect(names.size).toBe(0);
  });

  it('stops naming at its cap, and gives distinct names below it', () => {
    const names = new StatementNames(2);
    const given = new Set<string | undefined>();
    for (const text of ['a $1', 'b $1', 'c $1']) {
      names.nameOf(text, 1);
      given.add(names.nameOf(text, 1));
    }
    expect(names.size).toBe(2);
    expect([...given].filter(Boolean)).toHaveLength(2);
    expect(given.has(undefined)).toBe(true);
  });

  it('tells the errors after which a prepared statement cannot be used again', () => {
    expect(
      isStalePreparedStatement({ code: '26000', message: 'prepared statement "federa_1" does not exist' }),
    ).toBe(true);
    expect(
      isStalePreparedStatement({ code: '0A000', message: 'cached plan must not change result type' }),
    ).toBe(true);
    expect(isStalePreparedStatement({ code: '0A000', message: 'some other feature is not supported' })).toBe(
      false,
    );
    expect(isStalePreparedStatement({ code: '23505', message: 'duplicate key' })).toBe(false);
    expect(isStalePreparedStatement(undefined)).toBe(false);
  });
});
