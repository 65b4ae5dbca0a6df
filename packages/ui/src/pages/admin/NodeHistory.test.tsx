// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';

import { endReasonText, formatDuration } from './NodeHistory.js';

describe("a node's online history in words", () => {
  it('gives a length of time in its two largest units', () => {
    const s = 1000;
    expect(formatDuration(400)).toBe('under 1 s');
    expect(formatDuration(45 * s)).toBe('45 s');
    expect(formatDuration(245 * s)).toBe('4 min 5 s');
    expect(formatDuration((3 * 3600 + 12 * 60 + 9) * s)).toBe('3 h 12 min');
    expect(formatDuration(5 * 3600 * s)).toBe('5 h');
    expect(formatDuration((2 * 86_400 + 3 * 3600 + 59) * s)).toBe('2 d 3 h');
    // A clock that went back does not make a negative length.
    expect(formatDuration(-5 * s)).toBe('under 1 s');
  });

  it('says why a period ended, and shows a reason it does not know as given', () => {
    expect(endReasonText('timed_out')).toBe('the node stopped answering');
    expect(endReasonText(null)).toBe('unknown');
    expect(endReasonText('something_new')).toBe('something_new');
  });
});
