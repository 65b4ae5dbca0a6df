import { describe, expect, it } from 'vitest';
import { nodeInfo } from './node-info.js';

describe('what a node shares of its configuration', () => {
  it('names its databases by label and type, as vantage6 4.x nodes do, and never their location', () => {
    const info = nodeInfo({
      encryption: { enabled: true } as never,
      allowedAlgorithms: undefined,
      allowedUsers: [3],
      allowedOrganizations: undefined,
      databases: [
        { label: 'default', uri: '/data/ages.csv', type: 'csv', isFile: true },
        { label: 'warehouse', uri: 'postgresql://secret@db/x', type: 'sql', isFile: false },
        { label: 'other', uri: '/data/o.csv', type: undefined, isFile: true },
      ],
    });
    expect(info).toEqual({
      encryption: true,
      allowed_algorithms: 'all',
      allowed_users: [3],
      database_labels: ['default', 'warehouse', 'other'],
      database_types: ['csv', 'sql', 'csv'],
    });
    expect(JSON.stringify(info)).not.toContain('secret');
  });
});
