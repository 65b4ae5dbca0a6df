import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CliError, EXIT_CODES, exitWith, reasonOf } from './exit-codes.js';

describe('exit codes', () => {
  it('gives every reason its own code', () => {
    const codes = Object.values(EXIT_CODES).map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('are all documented in docs/cli.md', () => {
    const doc = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8');
    for (const [reason, { code }] of Object.entries(EXIT_CODES)) {
      expect(doc, `exit code ${code} (${reason})`).toMatch(
        new RegExp(`\\|\\s*${code}\\s*\\|\\s*\`${reason}\``),
      );
    }
  });

  it('exits through the table with the message on stderr', () => {
    const seen: { code?: number; text: string } = { text: '' };
    const sink = {
      stderr: { write: (t: string) => (seen.text += t) },
      exit: (code: number): never => {
        seen.code = code;
        throw new Error('exited');
      },
    };
    expect(() => exitWith(new CliError('state', 'already running'), undefined, sink)).toThrow('exited');
    expect(seen).toEqual({ code: 5, text: 'error: already running\n' });
    expect(reasonOf(Object.assign(new Error('x'), { name: 'ConfigError' }))).toBe('config');
    expect(reasonOf(Object.assign(new Error('x'), { name: 'ExitPromptError' }))).toBe('aborted');
    expect(reasonOf(new Error('other'))).toBe('failure');
  });
});
