import { describe, expect, it } from 'vitest';

import { normalizeRegistry, parseImageRef } from './image-ref.js';

describe('image references', () => {
  it('parses registry, repository, tag and digest', () => {
    expect(parseImageRef('alpine')).toEqual({
      registry: 'docker.io',
      repository: 'library/alpine',
      tag: undefined,
      digest: undefined,
    });
    expect(parseImageRef('harbor2.vantage6.ai/infrastructure/node:3.3')).toMatchObject({
      registry: 'harbor2.vantage6.ai',
      repository: 'infrastructure/node',
      tag: '3.3',
    });
    expect(parseImageRef('127.0.0.1:5000/a/b@sha256:abc')).toMatchObject({
      registry: '127.0.0.1:5000',
      repository: 'a/b',
      tag: undefined,
      digest: 'sha256:abc',
    });
    expect(parseImageRef('federa/base-node:local')).toMatchObject({
      registry: 'docker.io',
      repository: 'federa/base-node',
    });
    expect(normalizeRegistry('https://index.docker.io/v1/')).toBe('docker.io');
    expect(normalizeRegistry('https://Harbor.Example.org/')).toBe('harbor.example.org');
  });
});
