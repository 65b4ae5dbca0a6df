import { describe, expect, it } from 'vitest';
import { imageAllowed } from './policy.js';
import { parseImagePattern } from './image-policy.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const OTHER_DIGEST = `sha256:${'b'.repeat(64)}`;

describe('image policies compare registry, repository, tag and digest as parts', () => {
  it.each([
    // [pattern, image, allowed]
    ['harbor.example.org', 'harbor.example.org/algo', true],
    ['harbor.example.org', 'harbor.example.org/project/algo:1.0', true],
    ['harbor.example.org', 'harbor.example.org.evil.example/algo', false],
    ['harbor.example.org', 'harbor.example.org:8443/algo', false],
    ['^harbor\\.example\\.org/', 'harbor.example.org/algo', true],
    ['^harbor\\.example\\.org/', 'harbor.example.org.evil.example/algo', false],
    ['^harbor\\.example\\.org/.*', 'harbor.example.orgevil/algo', false],
    ['HARBOR.example.org', 'harbor.EXAMPLE.org/algo', true],
    ['localhost:5000', 'localhost:5000/algo', true],
    ['localhost:5000', 'localhost:5001/algo', false],
    ['federa/', 'federa/average:1.0', true],
    ['^federa/', 'docker.io/federa/average', true],
    ['^federa/', 'federa-evil/average', false],
    ['^federa/', 'harbor.example.org/federa/average', false],
    ['harbor.example.org/project/', 'harbor.example.org/project/algo', true],
    ['harbor.example.org/project/', 'harbor.example.org/project-evil/algo', false],
    ['harbor.example.org/project/algo', 'harbor.example.org/project/algo:2.0', true],
    ['harbor.example.org/project/algo', 'harbor.example.org/project/algo-evil', false],
    ['^federa-test/x-db:', 'federa-test/x-db:5', true],
    ['^federa-test/x-db:', 'federa-test/x-db-evil:5', false],
    ['harbor.example.org/algo:1.0', 'harbor.example.org/algo:1.0', true],
    ['harbor.example.org/algo:1.0', `harbor.example.org/algo:1.0@${DIGEST}`, false],
    ['harbor.example.org/algo:1.0', 'harbor.example.org/algo:1.01', false],
    ['^harbor\\.example\\.org/algo:1\\.0$', 'harbor.example.org/algo:1.0', true],
    ['algo:latest', 'algo', true],
    ['library/algo', 'algo:3', true],
    [`harbor.example.org/algo@${DIGEST}`, `harbor.example.org/algo@${DIGEST}`, true],
    [`harbor.example.org/algo@${DIGEST}`, `harbor.example.org/algo:any@${DIGEST}`, true],
    [`harbor.example.org/algo@${DIGEST}`, `harbor.example.org/algo@${OTHER_DIGEST}`, false],
    [`harbor.example.org/algo@${DIGEST}`, 'harbor.example.org/algo:1.0', false],
  ])('%s with %s: %s', (pattern, image, allowed) => {
    expect(imageAllowed(image, [pattern])).toBe(allowed);
  });

  it('allows every image without patterns, and an unusable reference never', () => {
    expect(imageAllowed('anything/at:all', undefined)).toBe(true);
    expect(imageAllowed('anything/at:all', [])).toBe(true);
    expect(imageAllowed('Harbor.example.org/ALGO', ['harbor.example.org'])).toBe(false);
  });

  it.each([
    ['^(harbor|federa)/', 'is a regular expression'],
    ['harbor\\.example\\.org/[a-z]+', 'is a regular expression'],
    ['^federa/avg.*', 'ends in part of a name'],
    ['^harbor.example.org', 'is a registry'],
    ['.*', 'matches every image'],
  ])('refuses %s, saying why and what to write', (pattern, why) => {
    const parsed = parseImagePattern(pattern);
    if (why === 'is a registry') {
      expect(parsed).toEqual({ kind: 'registry', registry: 'harbor.example.org' });
      return;
    }
    expect(typeof parsed).toBe('string');
    expect(parsed).toContain(why);
    expect(parsed).toContain('harbor.example.org/project/');
  });
});
