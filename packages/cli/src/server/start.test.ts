import { describe, expect, it } from 'vitest';
import { serverAddresses } from './start.js';

describe('serverAddresses (vserver start)', () => {
  it('shows the web UI beside the API and its documentation', () => {
    expect(serverAddresses('http://127.0.0.1:7601', '/api', {})).toBe(
      'web UI at http://127.0.0.1:7601/, API at http://127.0.0.1:7601/api, docs at http://127.0.0.1:7601/apidocs',
    );
  });

  it('shows the configured UI path, and no UI when it is turned off', () => {
    expect(serverAddresses('http://h:1', '/api', { ui: { path: '/app/' } })).toContain(
      'web UI at http://h:1/app/,',
    );
    expect(serverAddresses('http://h:1', '/api', { ui: { enabled: false } })).toBe(
      'API at http://h:1/api, docs at http://h:1/apidocs',
    );
  });
});
