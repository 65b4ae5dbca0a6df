import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { packageBoundaries } from './lint/package-boundaries.js';

/** Kysely's entry points to a query or a transaction: only repositories/ (and db/) call them. */
const QUERY_BUILDERS = [
  'selectFrom',
  'selectNoFrom',
  'insertInto',
  'replaceInto',
  'updateTable',
  'deleteFrom',
  'mergeInto',
  'transaction',
  'executeQuery',
];

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', 'clients/**', '**/*.js', '**/*.cjs', 'algorithms/**/*.js'],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { project: './tsconfig.eslint.json', tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import-x/no-cycle': 'error',
    },
  },
  {
    // One data-access layer (docs/architecture.md): SQL is written in the server's repositories/ only. Routes,
    // serializers and the rest call repository functions; they never build or run a query themselves.
    files: ['packages/server/src/**/*.ts'],
    ignores: ['packages/server/src/repositories/**', 'packages/server/src/db/**', '**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: `CallExpression[callee.property.name=/^(${QUERY_BUILDERS.join('|')})$/]`,
          message: 'Queries live in packages/server/src/repositories/: call a repository function instead.',
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'kysely',
              importNames: ['sql'],
              message:
                'Raw SQL lives in packages/server/src/repositories/: call a repository function instead.',
            },
          ],
        },
      ],
    },
  },
  {
    // Repositories are the data-access layer only (docs/architecture.md): they return rows, and what a caller sees
    // (serializers/) and how a request is answered (http/, routes/) build on them, never the other way round.
    files: ['packages/server/src/repositories/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/serializers/*', '**/http/*', '**/routes/*', '**/routes/**'],
              message:
                'Repositories import neither serializers/, http/ nor routes/: move the shared piece to db/ or @federa/common.',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'BinaryExpression[operator=/^[!=]==?$/][right.value=/^(sqlite|postgres)$/]',
          message:
            'A repository does not test the dialect: put what differs in db/dialects/*-sql.ts (DialectSql) and call dialectSql(dialect).',
        },
      ],
    },
  },
  {
    // The web UI is type-checked with its own configuration (DOM, JSX, the `browser` entries of the SDK and common).
    files: ['packages/ui/src/**/*.ts', 'packages/ui/src/**/*.tsx', 'packages/ui/vite.config.ts'],
    languageOptions: {
      parserOptions: { project: './packages/ui/tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import-x/no-cycle': 'error',
    },
  },
  // Package boundaries (docs/architecture.md), generated from the packages' package.json dependencies.
  ...packageBoundaries({ root: import.meta.dirname }),
);
