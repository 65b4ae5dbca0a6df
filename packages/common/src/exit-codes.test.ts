import { describe, expect, it } from 'vitest';
import { EXIT_CODES, exitReasonOf, exitWith, type ExitSink } from './exit-codes.js';

describe('the exit-code table', () => {
  it('keeps the codes the docs promise', () => {
    const codes = Object.fromEntries(Object.entries(EXIT_CODES).map(([reason, { code }]) => [reason, code]));
    expect(codes).toEqual({
      ok: 0,
      failure: 1,
      usage: 2,
      config: 3,
      docker: 4,
      state: 5,
      aborted: 6,
      remote: 7,
      timeout: 8,
      unavailable: 9,
      tampered: 10,
      input: 11,
    });
  });

  it('reads a code back as its reason, and nothing for codes outside the table', () => {
    for (const [reason, { code }] of Object.entries(EXIT_CODES)) expect(exitReasonOf(code)).toBe(reason);
    expect(exitReasonOf(137)).toBeUndefined();
    expect(exitReasonOf(-1)).toBeUndefined();
  });

  it('exits with the code of the reason after one line on stderr', () => {
    const seen: { code?: number; text: string } = { text: '' };
    const sink: ExitSink = {
      stderr: { write: (t: string) => (seen.text += t) },
      exit: (code: number): never => {
        seen.code = code;
        throw new Error('exited');
      },
    };
    expect(() => exitWith('config', 'node.yaml: key port: expected an integer', sink)).toThrow('exited');
    expect(seen).toEqual({ code: 3, text: 'node.yaml: key port: expected an integer\n' });
    seen.text = '';
    expect(() => exitWith('ok', undefined, sink)).toThrow('exited');
    expect(seen).toEqual({ code: 0, text: '' });
  });
});
