/**
 * The lint and type-check configuration names only paths that exist: a rule's exception for a file that was moved or
 * removed would otherwise stay, silently, and cover the next file given that name.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Folders of the repository a configured path may start with. */
const TOP = /^(packages|bench|scripts|algorithms|clients|docs|lint)\//;

/**
 * The part of each repository path in `text` (quoted) that must exist: a path without wildcards whole, a pattern
 * up to the folder before its first wildcard.
 */
export function fixedParts(text: string): string[] {
  return [...text.matchAll(/['"]([^'"\s]+)['"]/g)]
    .map((m) => m[1]!)
    .filter((p) => TOP.test(p))
    .map((p) => {
      const wild = p.search(/[*?[{]/);
      return wild < 0 ? p : p.slice(0, p.lastIndexOf('/', wild) + 1);
    });
}

describe('the lint configuration', () => {
  it('names no path that does not exist', () => {
    const missing = ['eslint.config.js', 'tsconfig.eslint.json', 'lint/package-boundaries.js'].flatMap(
      (file) =>
        fixedParts(readFileSync(join(root, file), 'utf8'))
          .filter((p) => !existsSync(join(root, p)))
          .map((p) => `${file}: ${p}`),
    );
    expect(missing).toEqual([]);
  });

  it('reads the fixed part of paths and patterns', () => {
    expect(
      fixedParts(
        `ignores: ['packages/server/src/test-support/**', "packages/a/b.ts", '**/*.test.ts', 'packages/*/e2e/**', 'kysely']`,
      ),
    ).toEqual(['packages/server/src/test-support/', 'packages/a/b.ts', 'packages/']);
  });
});
