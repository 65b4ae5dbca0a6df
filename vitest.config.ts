import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const pkg = (name: string): string =>
  fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url));

// One configuration for every package. Tests live beside the code as `*.test.ts`.
// FEDERA_TEST_DB selects the SQL dialect the database and API tests run against (sqlite | postgres);
// scripts/test-all.sh runs the suite once per dialect.
export default defineConfig({
  // The web UI's components (packages/ui) are React with the automatic JSX runtime.
  esbuild: { jsx: 'automatic' },
  resolve: {
    alias: Object.fromEntries(
      ['common', 'server', 'node', 'client', 'algorithm-tools', 'cli', 'testing'].map((n) => [
        `@federa/${n}`,
        pkg(n),
      ]),
    ),
  },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/ui/src/**/*.test.tsx',
      'packages/ui/e2e/**/*.test.ts',
      'bench/**/*.test.ts',
      'scripts/**/*.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
