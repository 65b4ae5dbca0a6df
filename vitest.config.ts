import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const PACKAGES = ['common', 'server', 'node', 'client', 'algorithm-tools', 'cli', 'testing'];
const src = (name: string, file: string): string =>
  fileURLToPath(new URL(`./packages/${name}/src/${file}`, import.meta.url));

/** `@federa/<name>/<entry>` for each further entry point of a package.json `exports` (its source file). */
const entryAliases = (name: string): { find: string; replacement: string }[] => {
  const pkg = JSON.parse(
    readFileSync(new URL(`./packages/${name}/package.json`, import.meta.url), 'utf8'),
  ) as { exports?: Record<string, { default?: string }> };
  return Object.entries(pkg.exports ?? {})
    .filter(([subpath, target]) => subpath !== '.' && target.default?.startsWith('./dist/'))
    .map(([subpath, target]) => ({
      find: `@federa/${name}/${subpath.slice(2)}`,
      replacement: src(name, (target.default ?? '').slice('./dist/'.length).replace(/\.js$/, '.ts')),
    }));
};

const TEST_FOLDERS = ['packages', 'e2e', 'bench', 'scripts'];
const TEST_FILE = /\.test\.tsx?$/;

/** Every test file under `dir`, outside installed and built folders. */
const testFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ['node_modules', 'dist'].includes(entry.name) ? [] : testFiles(path);
    return TEST_FILE.test(entry.name) ? [path] : [];
  });

/**
 * What makes a test file need a module registry and globals of its own: it replaces modules or functions, fakes the
 * clock or the environment. Such a file runs alone; the others share one process and its loaded modules, which
 * saves importing the whole stack again for each file (about 2 s a file on two cores).
 */
const CHANGES_GLOBALS =
  /\bvi\.(mock|doMock|spyOn|stubEnv|stubGlobal|useFakeTimers|resetModules)\(|process\.env\.[A-Z_]+\s*=[^=]|delete process\.env/;
const ROOT = fileURLToPath(new URL('.', import.meta.url));
const aloneFiles = TEST_FOLDERS.flatMap((folder) => testFiles(join(ROOT, folder)))
  .filter((file) => CHANGES_GLOBALS.test(readFileSync(file, 'utf8')))
  .map((file) => file.slice(ROOT.length));
/** The system tests start servers, nodes, containers and browsers of their own: each runs alone too. */
const SYSTEM_TESTS = ['e2e/**/*.test.ts', 'packages/ui/e2e/**/*.test.ts'];

// One configuration for every package. Tests live beside the code as `*.test.ts`; the system tests (a real server
// with real nodes, Docker, registries) in e2e/.
// FEDERA_TEST_DB selects the SQL dialect the database and API tests run against (sqlite | postgres);
// scripts/test-all.sh runs the suite once per dialect.
export default defineConfig({
  // The web UI's components (packages/ui) are React with the automatic JSX runtime.
  esbuild: { jsx: 'automatic' },
  resolve: {
    // The further entry points first: `@federa/server` would also match `@federa/server/config`.
    alias: [
      ...PACKAGES.flatMap(entryAliases),
      ...PACKAGES.map((n) => ({ find: `@federa/${n}`, replacement: src(n, 'index.ts') })),
    ],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: [
            'packages/*/src/**/*.test.ts',
            'packages/ui/src/**/*.test.tsx',
            'bench/**/*.test.ts',
            'scripts/**/*.test.ts',
          ],
          exclude: ['**/node_modules/**', ...aloneFiles],
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'alone', include: [...SYSTEM_TESTS, ...aloneFiles], isolate: true },
      },
    ],
  },
});
