import { describe, expect, it } from 'vitest';

import type { WireResultWithTask } from '../server-client/wire.js';
import { checkTask, runIds } from './task-check.js';

const good = {
  id: 7,
  input: 'aW5wdXQ=',
  task: {
    id: 3,
    run_id: 2,
    image: 'federa/average-python:local',
    initiator: 1,
    init_user: 1,
    database: 'default',
    collaboration: { id: 5 },
  },
};
const withTask = (task: Record<string, unknown>, top: Record<string, unknown> = {}) =>
  ({ ...good, ...top, task: { ...good.task, ...task } }) as unknown as WireResultWithTask;

describe('checkTask', () => {
  it('lets a well-formed task through', () => {
    expect(checkTask(withTask({}), 5)).toBeUndefined();
    expect(
      checkTask(withTask({ database: null, collaboration: undefined }, { input: null }), 5),
    ).toBeUndefined();
    expect(
      checkTask(withTask({ databases: [{ label: 'pg', type: 'sql', parameters: { query: 'q' } }] }), 5),
    ).toBeUndefined();
  });

  it.each([
    ['an empty image', { image: '' }, {}, 'failed', /image "" must not be empty/],
    ['no image', { image: undefined }, {}, 'failed', /must be a string/],
    ['an image with a space', { image: 'a b' }, {}, 'failed', /whitespace/],
    ['an image with ..', { image: '../../images' }, {}, 'failed', /invalid registry host/],
    ['an uppercase image', { image: 'Federa/X' }, {}, 'failed', /path component 'Federa'/],
    ['a NUL in the image', { image: 'a\u0000' }, {}, 'failed', /control/],
    ['a huge image', { image: 'a'.repeat(10_000) }, {}, 'failed', /"aaaa.*… is 10000 characters/],
    [
      'another collaboration',
      { collaboration: { id: 6 } },
      {},
      'not allowed',
      /collaboration 6, this node serves collaboration 5/,
    ],
    ['a database that is a number', { database: 42 }, {}, 'failed', /database label is not a string/],
    ['a huge database label', { database: 'x'.repeat(300) }, {}, 'failed', /longer than 256/],
    ['databases that are not a list', { databases: 'pg' }, {}, 'failed', /databases are not a list/],
    [
      'a database without a label',
      { databases: [{ type: 'csv' }] },
      {},
      'failed',
      /database 0 has no usable label/,
    ],
    [
      'too many databases',
      { databases: Array.from({ length: 33 }, () => ({ label: 'a' })) },
      {},
      'failed',
      /more than 32 databases/,
    ],
    [
      'parameters that are a list',
      { databases: [{ label: 'a', parameters: [1] }] },
      {},
      'failed',
      /parameters that are not an object/,
    ],
    [
      'a NUL in a parameter',
      { databases: [{ label: 'a', parameters: { query: 'x\u0000' } }] },
      {},
      'failed',
      /NUL/,
    ],
    ['an input that is an object', {}, { input: { a: 1 } }, 'failed', /input is not text/],
    ['no run id', { run_id: 'x' }, {}, 'failed', /no valid run id/],
    ['no initiator', { initiator: -1 }, {}, 'failed', /initiating organization/],
    ['a user id that is text', { init_user: 'root' }, {}, 'failed', /invalid user id/],
  ])('refuses %s', (_what, task, top, status, reason) => {
    const refusal = checkTask(withTask(task, top), 5);
    expect(refusal?.status).toBe(status);
    expect(refusal?.reason).toMatch(reason);
  });
});

describe('runIds', () => {
  it('needs a result id and a task object to report anything', () => {
    expect(runIds(good)).toEqual({ resultId: 7, taskId: 3, runId: 2 });
    expect(runIds({ ...good, task: { id: 'x' } })).toEqual({ resultId: 7, taskId: 0, runId: 0 });
    expect(runIds({ id: '7', task: {} })).toBeUndefined();
    expect(runIds({ id: 7 })).toBeUndefined();
    expect(runIds(null)).toBeUndefined();
    expect(runIds('x')).toBeUndefined();
  });
});
