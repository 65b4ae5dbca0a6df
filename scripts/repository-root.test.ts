/**
 * What may sit at the root of the repository. A test or command that takes a message for a folder writes files
 * relative to the working folder, which is the root in a test run; once committed, nobody notices (five
 * `the container's output: …/run-logs/42.log` files were committed that way). A new root entry is added to ROOT
 * on purpose, with the change that needs it.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The root's committed entries. */
const ROOT = new Set([
  '.ci',
  '.gitignore',
  '.prettierignore',
  '.prettierrc.json',
  'CHANGELOG.md',
  'README.md',
  'algorithms',
  'bench',
  'clients',
  'docs',
  'e2e',
  'eslint.config.js',
  'images',
  'lint',
  'package-lock.json',
  'package.json',
  'packages',
  'scripts',
  'tsconfig.base.json',
  'tsconfig.eslint.json',
  'tsconfig.json',
  'vitest.config.ts',
]);

/** Root entries that are made here and never committed (installs, builds, coverage; see .gitignore). */
const MADE = [
  /^node_modules$/,
  /^dist$/,
  /^build$/,
  /^coverage$/,
  /^tmp$/,
  /^__pycache__$/,
  /\.tsbuildinfo$/,
];

/** Dot-entries not committed are local tool state (.git, an editor's folder, a scratch folder): allowed. */
export function strayRootEntries(present: readonly string[]): string[] {
  return present.filter((n) => !ROOT.has(n) && !n.startsWith('.') && !MADE.some((re) => re.test(n))).sort();
}

describe('the repository root', () => {
  it('holds only its known entries (nothing a test or command wrote in the working folder)', () => {
    expect(strayRootEntries(readdirSync(root))).toEqual([]);
  });

  it('commits only its known entries', () => {
    const tracked = execFileSync('git', ['ls-files', '-z'], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    })
      .split('\0')
      .filter((p) => p !== '')
      .map((p) => p.split('/')[0]!);
    expect([...new Set(tracked)].filter((n) => !ROOT.has(n)).sort()).toEqual([]);
  });

  it('reports an entry written from a message taken for a folder', () => {
    expect(
      strayRootEntries(['docs', '.scratch', 'node_modules', "the container's output: vnode attach"]),
    ).toEqual(["the container's output: vnode attach"]);
  });
});
