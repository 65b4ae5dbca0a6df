import { describe, expect, it } from 'vitest';

import { HttpTransport, normalizeApiPath, queryString, snakeCase } from './http.js';

describe('query strings', () => {
  it('turns camelCase filters into the API parameters, repeating arrays and dropping unset flags', () => {
    expect(snakeCase('lastSeenFrom')).toBe('last_seen_from');
    expect(
      queryString({
        organizationId: [1, 2],
        includeRoot: true,
        encrypted: false,
        name: '%a b%',
        page: undefined,
      }),
    ).toBe('?organization_id=1&organization_id=2&include_root=true&name=%25a+b%25');
    expect(queryString({})).toBe('');
  });

  it('builds URLs from host, port and API path', () => {
    expect(normalizeApiPath('api/')).toBe('/api');
    expect(normalizeApiPath('')).toBe('');
    const t = new HttpTransport({ host: 'http://localhost/', port: 5000, apiPath: '/api/' }, 1000);
    expect(t.url('/task/1', { include: 'results' })).toBe('http://localhost:5000/api/task/1?include=results');
    expect(t.origin).toBe('http://localhost:5000');
  });
});
