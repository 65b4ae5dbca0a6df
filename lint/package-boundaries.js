/**
 * The package boundaries of docs/architecture.md, as ESLint rules generated from the packages' package.json files,
 * so that a new package gets its boundaries without editing a list:
 * - a package imports another only when its package.json depends on it (`dependencies`; tests also
 *   `devDependencies`): server and node never import each other, common imports no package, nothing shipped
 *   imports @federa/testing;
 * - it imports a package through that package's index.ts (`@federa/<name>`) or another entry point its package.json
 *   `exports` declares (e.g. `@federa/server/config`, for a caller that needs no more), never one of its other files,
 *   and never through a relative path into another package.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

const SCOPE = '@federa/';
/** Test code anywhere; a package's build leaves out more (its tsconfig.json `exclude`): see {@link testFiles}. */
const TEST_FILES = ['**/*.test.ts', '**/*.test.tsx', 'packages/*/e2e/**'];

/**
 * The files that are not shipped, which may use `devDependencies`: tests, and what each package's build leaves out
 * (`exclude` of its tsconfig.json, e.g. files named `*.e2e.ts`).
 * @param {string} root
 * @param {string[]} dirs
 */
function testFiles(root, dirs) {
  const globs = [...TEST_FILES];
  for (const dir of dirs) {
    const file = join(root, 'packages', dir, 'tsconfig.json');
    if (!existsSync(file)) continue;
    for (const pattern of JSON.parse(readFileSync(file, 'utf8')).exclude ?? [])
      globs.push(`packages/${dir}/${pattern}${/[*?]/.test(pattern) ? '' : '/**'}`);
  }
  return [...new Set(globs)];
}

/**
 * The workspace packages under `root/packages`: their directory name, and which of the other packages they depend
 * on in `dependencies` (`runtime`) and in `dependencies` or `devDependencies` (`tests`).
 * @param {string} root
 * @returns {{ dir: string, runtime: string[], tests: string[], entries: string[] }[]}
 */
export function packageGraph(root) {
  const packagesDir = join(root, 'packages');
  const dirs = readdirSync(packagesDir).filter((d) => existsSync(join(packagesDir, d, 'package.json')));
  const byName = new Map(
    dirs.map((d) => [JSON.parse(readFileSync(join(packagesDir, d, 'package.json'), 'utf8')).name, d]),
  );
  const internal = (deps = {}) =>
    Object.keys(deps)
      .filter((name) => name.startsWith(SCOPE) && byName.has(name))
      .map((name) => byName.get(name));
  return dirs.map((dir) => {
    const pkg = JSON.parse(readFileSync(join(packagesDir, dir, 'package.json'), 'utf8'));
    const runtime = internal(pkg.dependencies);
    return {
      dir,
      runtime,
      tests: [...new Set([...runtime, ...internal(pkg.devDependencies)])],
      entries: entryPoints(pkg),
    };
  });
}

/**
 * The files through which a package may be imported: its index (source and build) and every build file its
 * `exports` name, under any condition (e.g. `browser`), with the source file it is built from (`./dist/x/y.js` from
 * `./src/x/y.ts`).
 * @param {{ exports?: Record<string, unknown> }} pkg
 * @returns {string[]}
 */
function entryPoints(pkg) {
  const entries = new Set(['./src/index.ts', './dist/index.js']);
  const visit = (target) => {
    if (typeof target === 'string') {
      if (!/^\.\/dist\/.+\.js$/.test(target)) return;
      entries.add(target);
      entries.add(target.replace(/^\.\/dist\//, './src/').replace(/\.js$/, '.ts'));
    } else if (target && typeof target === 'object') Object.values(target).forEach(visit);
  };
  visit(pkg.exports ?? {});
  return [...entries];
}

/**
 * The `import-x/no-restricted-paths` zones of one kind of file (`runtime` or `tests`): per package, every other
 * package it does not depend on is out of bounds; a package it depends on is open through its entry points only.
 * @param {ReturnType<typeof packageGraph>} graph
 * @param {'runtime' | 'tests'} kind
 */
export function boundaryZones(graph, kind) {
  const zones = [];
  for (const pkg of graph) {
    const target = `./packages/${pkg.dir}`;
    for (const other of graph) {
      if (other.dir === pkg.dir) continue;
      const from = `./packages/${other.dir}`;
      if (pkg[kind].includes(other.dir))
        zones.push({
          target,
          from,
          except: other.entries,
          message: `Import @federa/${other.dir} (its index.ts, or an entry point of its package.json exports), not one of its files.`,
        });
      else
        zones.push({
          target,
          from,
          message: `packages/${pkg.dir} does not depend on @federa/${other.dir}${
            kind === 'tests' ? ' (dependencies and devDependencies' : ' (dependencies'
          } of packages/${pkg.dir}/package.json).`,
        });
    }
  }
  return zones;
}

/**
 * The ESLint configuration objects of the boundaries: one for shipped code, one for what is not shipped (tests).
 * @param {{ root: string }} options
 */
export function packageBoundaries({ root }) {
  const graph = packageGraph(root);
  const settings = {
    'import-x/resolver-next': [
      createNodeResolver({
        tsconfig: { configFile: join(root, 'tsconfig.eslint.json') },
        extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
        extensionAlias: { '.js': ['.ts', '.tsx', '.js'] },
      }),
    ],
  };
  const rules = (kind) => ({
    'import-x/no-restricted-paths': ['error', { basePath: root, zones: boundaryZones(graph, kind) }],
  });
  const notShipped = testFiles(
    root,
    graph.map((p) => p.dir),
  );
  return [
    {
      files: ['packages/*/**/*.ts', 'packages/*/**/*.tsx'],
      ignores: notShipped,
      plugins: { 'import-x': importX },
      settings,
      rules: rules('runtime'),
    },
    {
      files: notShipped,
      plugins: { 'import-x': importX },
      settings,
      rules: rules('tests'),
    },
    {
      // A relative path into another package skips its package.json (and so these boundaries).
      files: ['packages/*/**/*.ts', 'packages/*/**/*.tsx'],
      plugins: { 'import-x': importX },
      rules: { 'import-x/no-relative-packages': 'error' },
    },
  ];
}
