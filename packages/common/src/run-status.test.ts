import { describe, expect, it } from 'vitest';
import {
  OPEN_RUN_STATUSES,
  RUN_STATUSES,
  RunStatus,
  isFailedRunStatus,
  isFinishedRunStatus,
  runTransitionRefusal,
  type RunStatusValue,
} from './run-status.js';

const FINISHED = RUN_STATUSES.filter((s) => !(OPEN_RUN_STATUSES as readonly string[]).includes(s));

/** The state diagram of docs/run-statuses.md, edge by edge. */
const EDGES: ReadonlyArray<readonly [RunStatusValue, RunStatusValue]> = [
  ['pending', 'initializing'],
  ['pending', 'active'],
  ['initializing', 'active'],
  ['pending', 'awaiting release'],
  ['initializing', 'awaiting release'],
  ['active', 'awaiting release'],
  ...OPEN_RUN_STATUSES.flatMap((from) => FINISHED.map((to) => [from, to] as const)),
];

describe('run statuses', () => {
  it('are the 3.x wire values plus the precise ones', () => {
    expect(RUN_STATUSES).toEqual([
      'pending',
      'initializing',
      'active',
      'awaiting release',
      'completed',
      'failed',
      'start failed',
      'non-existing Docker image',
      'crashed',
      'killed by user',
      'not allowed',
      'unknown error',
      'unexpected output',
      'cancelled',
      'output refused',
      'release refused',
    ]);
    expect(FINISHED).toHaveLength(12);
    expect(isFinishedRunStatus('awaiting release')).toBe(false);
    expect(isFailedRunStatus('output refused')).toBe(true);
    expect(isFailedRunStatus('release refused')).toBe(true);
    expect(isFinishedRunStatus('active')).toBe(false);
    expect(isFinishedRunStatus('killed by user')).toBe(true);
    expect(isFinishedRunStatus('sleeping')).toBe(false);
    expect(isFailedRunStatus('completed')).toBe(false);
    expect(isFailedRunStatus('cancelled')).toBe(true);
  });

  it('allow exactly the moves of the diagram, and staying where a run is', () => {
    for (const from of RUN_STATUSES) {
      for (const to of RUN_STATUSES) {
        const allowed = from === to || EDGES.some(([a, b]) => a === from && b === to);
        const refusal = runTransitionRefusal(from, to);
        expect({ from, to, allowed: refusal === undefined }).toEqual({ from, to, allowed });
      }
    }
  });

  it('say why a move is refused', () => {
    expect(runTransitionRefusal(RunStatus.active, RunStatus.initializing)).toBe(
      "a run never goes back from 'active' to 'initializing'",
    );
    expect(runTransitionRefusal(RunStatus.killed, RunStatus.active)).toBe(
      "a run that has finished ('killed by user') never changes its status",
    );
    expect(runTransitionRefusal(RunStatus.completed, RunStatus.crashed)).toMatch(/has finished/);
    expect(runTransitionRefusal(RunStatus.pending, 'done')).toMatch(
      /^'done' is not a run status \(one of: 'pending'/,
    );
  });
});
