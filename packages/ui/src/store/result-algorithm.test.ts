import { describe, expect, it } from 'vitest';

import { readAlgorithm, readViews } from './result-algorithm.js';

const algorithm = (functions: unknown, extra: Record<string, unknown> = {}) => ({
  id: 4,
  name: 'count',
  image: 'example/count:1',
  digest: `sha256:${'7'.repeat(64)}`,
  status: 'approved',
  functions,
  ...extra,
});

describe("the algorithm a results page draws with, read from a store's answer", () => {
  it('reads an algorithm: its label, the image it pins, its functions and their views', () => {
    const read = readAlgorithm(
      algorithm([
        {
          name: 'central_count',
          display_name: 'Count',
          ui_visualizations: [
            { name: 'Rows', type: 'table', description: 'one row', schema: { keys: ['count'] } },
          ],
        },
      ]),
    );
    expect(read).toEqual({
      id: 4,
      label: 'count',
      status: 'approved',
      pinned: `example/count:1@sha256:${'7'.repeat(64)}`,
      functions: [
        {
          name: 'central_count',
          label: 'Count',
          views: [{ name: 'Rows', type: 'table', description: 'one row', schema: { keys: ['count'] } }],
          unreadableViews: 0,
        },
      ],
    });
  });

  it('is null for an answer that is not an algorithm', () => {
    for (const answer of [
      null,
      'garbage',
      7,
      [],
      { id: '4', name: 'x', image: 'y', functions: [] },
      { id: 4 },
    ])
      expect(readAlgorithm(answer), JSON.stringify(answer)).toBeNull();
    expect(readAlgorithm(algorithm('not a list'))).toBeNull();
  });

  it('leaves out functions without a name, and names as text only', () => {
    const read = readAlgorithm(
      algorithm([null, 7, { display_name: 'nameless' }, { name: 'f', display_name: { html: '<b>' } }], {
        display_name: ['not text'],
        status: 3,
        digest: null,
      }),
    );
    expect(read?.label).toBe('count');
    expect(read?.status).toBe('');
    expect(read?.pinned).toBe('example/count:1');
    expect(read?.functions).toEqual([{ name: 'f', label: 'f', views: [], unreadableViews: 0 }]);
  });

  it('counts the views it cannot draw, and keeps the first of two views of one name', () => {
    expect(
      readViews([
        null,
        'table',
        { name: 5, type: 'table' },
        { name: 'no type' },
        { name: ' ', type: 'table' },
        { name: 'Rows', type: 'table', schema: 'keys', description: 12 },
        { name: 'Rows', type: 'line' },
      ]),
    ).toEqual({ views: [{ name: 'Rows', type: 'table' }], unreadable: 6 });
    expect(readViews('not a list')).toEqual({ views: [], unreadable: 0 });
    expect(readViews(undefined)).toEqual({ views: [], unreadable: 0 });
  });
});
