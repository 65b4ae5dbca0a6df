/**
 * No source file over 400 lines (docs/architecture.md): past that, a file holds more than one concept and becomes a
 * folder of files, one each. Tests are held to the same habit by review, not here: a test file grows with the
 * cases of the one thing it covers.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

export const MAX_LINES = 400;

const SOURCE = /\.(ts|tsx|mts|js|mjs|cjs|R|py|sh)$/;
const TEST = /\.test\.tsx?$|(^|\/)tests?\/|(^|\/)test_[^/]*\.py$|_test\.py$/;

/** The paths among `paths` that are source files (not tests) held to {@link MAX_LINES}. */
export function heldToSize(paths: readonly string[]): string[] {
  return paths.filter((p) => SOURCE.test(p) && !TEST.test(p));
}

describe('source files', () => {
  it(`have at most ${MAX_LINES} lines each`, () => {
    const tracked = execFileSync('git', ['ls-files', '-z'], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    })
      .split('\0')
      .filter((p) => p !== '');
    const over = heldToSize(tracked)
      .map((p) => ({ path: p, lines: readFileSync(join(root, p), 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${f.path}: ${f.lines} lines`);
    expect(over).toEqual([]);
  });

  it('are told apart from tests in every language of the repository', () => {
    expect(
      heldToSize([
        'packages/server/src/app.ts',
        'packages/server/src/app.test.ts',
        'packages/ui/src/App.test.tsx',
        'clients/r/R/client.R',
        'clients/r/tests/testthat/test-client.R',
        'clients/python/federa_client/client.py',
        'clients/python/tests/test_client.py',
        'bench/api-mixed/run.mjs',
        'scripts/federation.sh',
        'docs/README.md',
      ]),
    ).toEqual([
      'packages/server/src/app.ts',
      'clients/r/R/client.R',
      'clients/python/federa_client/client.py',
      'bench/api-mixed/run.mjs',
      'scripts/federation.sh',
    ]);
  });
});
