import { readFileSync } from 'node:fs';
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
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/ui/src/**/*.test.tsx',
      'packages/ui/e2e/**/*.test.ts',
      'e2e/**/*.test.ts',
      'bench/**/*.test.ts',
      'scripts/**/*.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
