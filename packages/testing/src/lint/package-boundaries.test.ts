/**
 * The package boundaries (lint/package-boundaries.js, docs/architecture.md) hold: ESLint, with the repository's own
 * configuration, refuses imports across them in fixture sources placed in the packages, and a package added to
 * the tree gets its boundaries from its package.json alone.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const BOUNDARY_RULES = new Set(['import-x/no-restricted-paths', 'import-x/no-relative-packages']);

// The repository's eslint.config.js, only the boundary rules, without type information (fixtures are not files).
const eslint = new ESLint({
  cwd: root,
  ruleFilter: ({ ruleId }) => BOUNDARY_RULES.has(ruleId),
  overrideConfig: { languageOptions: { parserOptions: { project: false, projectService: false } } },
});

/** The boundary messages ESLint gives for `source` as if it were the file `filePath` (relative to the root). */
async function lint(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: join(root, filePath) });
  return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('package boundaries', () => {
  it('refuse the server importing the node, by its name or by a path into it', async () => {
    expect(
      await lint('packages/server/src/fixture.ts', "export { startNode } from '@federa/node';\n"),
    ).toEqual([
      'import-x/no-restricted-paths: Unexpected path "@federa/node" imported in restricted zone. packages/server does not depend on @federa/node (dependencies of packages/server/package.json).',
    ]);
    const byPath = await lint('packages/server/src/fixture.ts', "export * from '../../node/src/index.js';\n");
    expect(byPath).toContain(
      'import-x/no-restricted-paths: Unexpected path "../../node/src/index.js" imported in restricted zone. packages/server does not depend on @federa/node (dependencies of packages/server/package.json).',
    );
    expect(byPath.some((m) => m.startsWith('import-x/no-relative-packages:'))).toBe(true);
  });

  it('refuse the node importing the server, in its tests too', async () => {
    expect(
      await lint('packages/node/src/fixture.test.ts', "export { startServer } from '@federa/server';\n"),
    ).toEqual([
      'import-x/no-restricted-paths: Unexpected path "@federa/server" imported in restricted zone. packages/node does not depend on @federa/server (dependencies and devDependencies of packages/node/package.json).',
    ]);
  });

  it('refuse common importing any package', async () => {
    for (const other of ['server', 'node', 'client', 'algorithm-tools', 'testing'])
      expect(
        await lint('packages/common/src/fixture.ts', `export * from '@federa/${other}';\n`),
        other,
      ).toHaveLength(1);
  });

  it('open a dependency through its index.ts and its declared entry points only', async () => {
    expect(
      await lint('packages/server/src/fixture.ts', "export { ConfigError } from '@federa/common';\n"),
    ).toEqual([]);
    expect(
      await lint('packages/server/src/fixture.ts', "export * from '../../common/src/encryption/keys.js';\n"),
    ).toContain(
      'import-x/no-restricted-paths: Unexpected path "../../common/src/encryption/keys.js" imported in restricted zone. Import @federa/common (its index.ts, or an entry point of its package.json exports), not one of its files.',
    );
    // packages/server/package.json exports ./config: the CLI may load the configuration checks alone.
    expect(
      await lint(
        'packages/cli/src/fixture.ts',
        "export { parseServerConfig } from '@federa/server/config';\n",
      ),
    ).toEqual([]);
    expect(
      await lint(
        'packages/cli/src/fixture.ts',
        "export { SocketServer } from '../../server/src/socket/socket-server.js';\n",
      ),
    ).toContain(
      'import-x/no-restricted-paths: Unexpected path "../../server/src/socket/socket-server.js" imported in restricted zone. Import @federa/server (its index.ts, or an entry point of its package.json exports), not one of its files.',
    );
  });

  it('keep @federa/testing out of shipped code, and open it to tests', async () => {
    const source = "export { startTestApp } from '@federa/testing';\n";
    expect(await lint('packages/server/src/routes/fixture.ts', source)).toEqual([
      'import-x/no-restricted-paths: Unexpected path "@federa/testing" imported in restricted zone. packages/server does not depend on @federa/testing (dependencies of packages/server/package.json).',
    ]);
    expect(await lint('packages/server/src/routes/fixture.test.ts', source)).toEqual([]);
  });
});

describe('the boundaries of a new package', () => {
  const dir = mkdtempSync(join(tmpdir(), 'federa-boundaries-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('come from its package.json, without editing the configuration', async () => {
    const write = (name: string, pkg: Record<string, unknown>): void => {
      mkdirSync(join(dir, 'packages', name), { recursive: true });
      writeFileSync(
        join(dir, 'packages', name, 'package.json'),
        JSON.stringify({ name: `@federa/${name}`, ...pkg }),
      );
    };
    write('common', {});
    write('server', { dependencies: { '@federa/common': '0.1.0' } });
    write('reports', {
      dependencies: { '@federa/common': '0.1.0', pg: '^8' },
      devDependencies: { '@federa/server': '0.1.0' },
    });
    const { packageGraph, boundaryZones } = (await import(
      pathToFileURL(join(root, 'lint/package-boundaries.js')).href
    )) as {
      packageGraph(root: string): { dir: string }[];
      boundaryZones(
        graph: { dir: string }[],
        kind: 'runtime' | 'tests',
      ): { target: string; from: string; except?: string[] }[];
    };
    const graph = packageGraph(dir);
    const zonesOf = (kind: 'runtime' | 'tests') =>
      boundaryZones(graph, kind)
        .filter((z) => z.target === './packages/reports')
        .map((z) => `${z.from}${z.except ? ' except index' : ''}`)
        .sort();
    expect(zonesOf('runtime')).toEqual(['./packages/common except index', './packages/server']);
    expect(zonesOf('tests')).toEqual(['./packages/common except index', './packages/server except index']);
    // And the others may not import it.
    expect(
      boundaryZones(graph, 'tests')
        .filter((z) => z.from === './packages/reports')
        .map((z) => `${z.target}${z.except ? ' except index' : ''}`)
        .sort(),
    ).toEqual(['./packages/common', './packages/server']);
  });
});
