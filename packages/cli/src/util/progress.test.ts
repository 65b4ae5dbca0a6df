/**
 * Progress lines as an administrator reads them in a log (not a terminal): the start, an update at most every ten
 * seconds however often the work reports, and the end with its time.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';

import { Progress, QUIET_INTERVAL_MS } from './progress.js';

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
});
afterEach(() => vi.useRealTimers());

it('prints an update at most every ten seconds when not on a terminal', () => {
  const lines: string[] = [];
  const step = new Progress({ write: (s: string) => lines.push(s) }).step('pulling federa/node');
  // The work reports every second for 25 seconds.
  for (let s = 1; s <= 25; s++) {
    vi.advanceTimersByTime(1000);
    step.update(`layer 1/2 ${s * 4}%`);
  }
  step.succeed();
  expect(QUIET_INTERVAL_MS).toBe(10_000);
  expect(lines).toEqual([
    '… pulling federa/node\n',
    '… pulling federa/node: layer 1/2 40% (10.0s)\n',
    '… pulling federa/node: layer 1/2 80% (20.0s)\n',
    '✓ pulling federa/node (25.0s)\n',
  ]);
});

it('on a terminal, rewrites its one line at every change', () => {
  const lines: string[] = [];
  const step = new Progress({ write: (s: string) => lines.push(s), isTTY: true }).step('building');
  vi.advanceTimersByTime(300);
  step.update('step 1/3');
  vi.advanceTimersByTime(300);
  step.update('step 2/3');
  step.fail('no space left');
  expect(lines).toEqual([
    '\r\x1b[2K… building',
    '\r\x1b[2K… building: step 1/3 (0.3s)',
    '\r\x1b[2K… building: step 2/3 (0.6s)',
    '\r\x1b[2K✗ building: no space left (0.6s)\n',
  ]);
});
