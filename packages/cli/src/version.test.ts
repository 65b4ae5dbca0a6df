import { describe, expect, it } from 'vitest';
import { CLI_VERSION, compareVersions, formatVersion, parseVersion, sameMajor } from './version.js';

const v = (text: string) => {
  const parsed = parseVersion(text);
  if (!parsed) throw new Error(`not a version: ${text}`);
  return parsed;
};

describe('version', () => {
  it('parses major.minor.patch with an optional postN suffix', () => {
    expect(parseVersion('3.3.0')).toEqual({ major: 3, minor: 3, patch: 0, post: 0 });
    expect(parseVersion('2.0.0.post1')).toEqual({ major: 2, minor: 0, patch: 0, post: 1 });
    expect(parseVersion('2.0.0-post2')).toEqual({ major: 2, minor: 0, patch: 0, post: 2 });
    expect(parseVersion('v1.2.3')).toEqual({ major: 1, minor: 2, patch: 3, post: 0 });
  });

  it('refuses what is not a version', () => {
    for (const bad of ['latest', 'local', '1.2', '1.2.3.4', '1.2.3-rc1', '', 'petronas']) {
      expect(parseVersion(bad), bad).toBeUndefined();
    }
  });

  it('orders versions, a post release after its patch release', () => {
    const sorted = ['1.0.0', '0.9.9', '1.0.0.post1', '1.0.1', '1.10.0', '1.2.0', '2.0.0']
      .map(v)
      .sort(compareVersions)
      .map(formatVersion);
    expect(sorted).toEqual(['0.9.9', '1.0.0', '1.0.0.post1', '1.0.1', '1.2.0', '1.10.0', '2.0.0']);
    expect(compareVersions(v('3.1.0'), v('3.1.0'))).toBe(0);
  });

  it('tells whether two versions share the major version', () => {
    expect(sameMajor(v('3.0.0'), v('3.11.1.post2'))).toBe(true);
    expect(sameMajor(v('3.0.0'), v('2.3.4'))).toBe(false);
  });

  it('knows its own version', () => {
    expect(parseVersion(CLI_VERSION)).toBeDefined();
  });
});
