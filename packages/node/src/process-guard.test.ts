import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIST = join(import.meta.dirname, '../dist/process-guard.js');

describe('process guard', () => {
  it('keeps the process alive after an unhandled rejection and an exception thrown from a callback, and logs both', () => {
    // A child process: the test runner has its own handlers for both events.
    const script = `
      import pino from 'pino';
      import { installProcessGuard } from ${JSON.stringify(DIST)};
      installProcessGuard(pino({ base: null, timestamp: false }, pino.destination({ dest: 1, sync: true })));
      void Promise.reject(new Error('escaped rejection'));
      setTimeout(() => { throw new Error('escaped exception'); }, 10);
      setTimeout(() => { process.stdout.write('still serving\\n'); }, 100);
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: join(import.meta.dirname, '..'),
      encoding: 'utf8',
    });
    const lines = out.trim().split('\n');
    expect(lines.at(-1)).toBe('still serving');
    const logged = lines
      .slice(0, -1)
      .map((l) => JSON.parse(l) as { event: string; kind: string; err: string });
    expect(logged.map((l) => [l.event, l.kind])).toEqual([
      ['node.uncaught', 'unhandledRejection'],
      ['node.uncaught', 'uncaughtException'],
    ]);
    expect(logged[0]!.err).toContain('escaped rejection');
    expect(logged[1]!.err).toContain('escaped exception');
  });
});
