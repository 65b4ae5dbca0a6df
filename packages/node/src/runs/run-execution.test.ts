import { describe, expect, it } from 'vitest';

import { exitOutcome } from './run-execution.js';
import { RunStatus } from './run-status.js';

describe('exitOutcome', () => {
  it('is completed, with the log as it is, when the container exited 0 and wrote its output file', () => {
    expect(exitOutcome(0, Buffer.from('42'), 'working\n')).toEqual({
      status: RunStatus.completed,
      output: Buffer.from('42'),
      log: 'working\n',
    });
  });

  it('is crashed on a non-zero exit, with the exit code added to the log on a line of its own', () => {
    expect(exitOutcome(3, Buffer.from('partial'), 'boom')).toEqual({
      status: RunStatus.crashed,
      output: Buffer.from('partial'),
      log: 'boom\n[federa node] the algorithm exited with code 3\n',
      reason: 'the algorithm exited with code 3',
    });
  });

  it('is unexpected output when the container exited 0 without its output file', () => {
    expect(exitOutcome(0, undefined, '')).toEqual({
      status: RunStatus.unexpectedOutput,
      output: Buffer.alloc(0),
      log: '[federa node] the algorithm exited with code 0, but its output file is missing\n',
      reason: 'the algorithm exited with code 0, but its output file is missing',
    });
  });
});
