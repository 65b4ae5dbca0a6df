/**
 * The `browser` entries of the packages (package.json `exports`, condition `browser`; the web UI bundles them, see
 * docs/ui.md) import no Node.js module, neither themselves nor through any file they import, and take another
 * package only through its own `browser` entry.
 */
import { builtinModules } from 'node:module';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const packagesDir = join(root, 'packages');

interface Manifest {
  name: string;
  exports?: Record<string, unknown>;
}

const manifests = readdirSync(packagesDir)
  .filter((dir) => existsSync(join(packagesDir, dir, 'package.json')))
  .map((dir) => ({
    dir,
    pkg: JSON.parse(readFileSync(join(packagesDir, dir, 'package.json'), 'utf8')) as Manifest,
  }));

/** The source file of a package's `browser` entry (`./dist/x.js` is built from `src/x.ts`), if it has one. */
function browserSource(dir: string, pkg: Manifest): string | undefined {
  const dot = pkg.exports?.['.'];
  const browser =
    typeof dot === 'object' && dot !== null ? (dot as { browser?: unknown }).browser : undefined;
  const built =
    typeof browser === 'string' ? browser : (browser as { default?: string } | undefined)?.default;
  if (built === undefined) return undefined;
  return join(packagesDir, dir, built.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
}

/** The module specifiers a file imports at run time (type-only imports and exports are erased by the compiler). */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  const statement =
    /^\s*(import|export)\s+(type\s)?[^'";]*?\bfrom\s+'([^']+)'|^\s*import\s+'([^']+)'|\bimport\('([^']+)'\)/gm;
  for (const m of text.matchAll(statement)) {
    if (m[2] !== undefined) continue;
    const spec = m[3] ?? m[4] ?? m[5];
    if (spec !== undefined) found.push(spec);
  }
  return found;
}

/**
 * The files reached from `entry` through relative imports, and every package or Node.js module they import (with the
 * file importing it).
 */
function importGraph(entry: string): { files: Set<string>; external: { spec: string; from: string }[] } {
  const seen = new Set<string>();
  const external: { spec: string; from: string }[] = [];
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of runtimeImports(file)) {
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else external.push({ spec, from: relative(root, file) });
    }
  };
  visit(entry);
  return { files: seen, external };
}

const NODE = new Set(builtinModules);
const isNodeModule = (spec: string): boolean =>
  spec.startsWith('node:') || NODE.has(spec.split('/')[0] ?? '');

const entries = manifests.flatMap(({ dir, pkg }) => {
  const source = browserSource(dir, pkg);
  return source === undefined ? [] : [{ name: pkg.name, source }];
});
const browserPackages = new Set(entries.map((e) => e.name));

describe('browser entries', () => {
  it('are declared by the packages the web UI bundles', () => {
    expect([...browserPackages].sort()).toEqual(['@federa/client', '@federa/common']);
  });

  it.each(entries)(
    '$name imports no Node.js module, and other packages through their browser entry',
    ({ source }) => {
      const { files, external: reached } = importGraph(source);
      expect(files.size).toBeGreaterThan(1);
      expect(reached.filter((i) => isNodeModule(i.spec))).toEqual([]);
      expect(reached.filter((i) => i.spec.startsWith('@federa/') && !browserPackages.has(i.spec))).toEqual(
        [],
      );
    },
  );

  it('tells a Node.js module from a package', () => {
    expect(['node:crypto', 'fs', 'fs/promises'].map(isNodeModule)).toEqual([true, true, true]);
    expect(['socket.io-client', '@federa/common'].map(isNodeModule)).toEqual([false, false]);
  });
});
