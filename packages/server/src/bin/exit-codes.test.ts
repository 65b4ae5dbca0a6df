import { describe, expect, it } from 'vitest';
import { unexpectedErrorText } from './exit-codes.js';

describe('vserver-local: an unexpected error', () => {
  const error = new Error('the database refused the migration');

  it('is said as its message only: no stack frame or source path', () => {
    const text = unexpectedErrorText(error, {});
    expect(text).toBe('error: the database refused the migration');
    expect(text).not.toMatch(/\n\s+at |\.ts:|\.js:|\/src\//);
  });

  it('shows its stack with FEDERA_DEBUG=1', () => {
    const text = unexpectedErrorText(error, { FEDERA_DEBUG: '1' });
    expect(text.split('\n')[0]).toBe('error: the database refused the migration');
    expect(text).toContain('exit-codes.test.ts');
  });

  it('names something thrown that is not an Error, and an Error without a message', () => {
    expect(unexpectedErrorText('boom', {})).toBe('error: boom');
    expect(unexpectedErrorText(new TypeError(''), {})).toBe('error: TypeError');
  });
});
