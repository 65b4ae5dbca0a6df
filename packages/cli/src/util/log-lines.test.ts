import { describe, expect, it } from 'vitest';
import { readableLine } from './log-lines.js';

describe('readableLine', () => {
  it('never shows the generated root password again (vserver attach)', () => {
    expect(
      readableLine(
        "*** The root user 'root' was created with the generated password: Xy-123abc! -- store it now and change it after logging in; it is shown only this once. ***",
      ),
    ).toBeUndefined();
  });

  it('turns a JSON log line into time, level, message and the other fields', () => {
    expect(
      readableLine(
        '{"level":40,"time":"2026-11-23T10:11:12.000Z","node":"a","event":"login.retry","url":"http://x/api","msg":"server unreachable at http://x/api (ECONNREFUSED); retrying"}',
      ),
    ).toBe(
      '10:11:12 WARN  server unreachable at http://x/api (ECONNREFUSED); retrying  event=login.retry url=http://x/api',
    );
    expect(readableLine('{"level":"info","time":"2026-11-23T10:11:12.000Z","msg":"listening"}')).toBe(
      '10:11:12 INFO  listening',
    );
    expect(readableLine('plain text')).toBe('plain text');
    expect(readableLine('')).toBeUndefined();
    expect(readableLine('{not json')).toBe('{not json');
  });
});
