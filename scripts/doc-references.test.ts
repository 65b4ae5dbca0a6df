import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkText, findDocReferenceProblems, readPage, slug, type DocPage } from './doc-references.js';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('references to docs/', () => {
  it('every reference in the code and the docs names an existing page and heading, and none cites the external spec', () => {
    const problems = findDocReferenceProblems(root).map((p) => `${p.file}:${p.line}: ${p.problem}`);
    expect(problems).toEqual([]);
  });
});

describe('the reference checker', () => {
  const pages = new Map<string, DocPage>([
    [
      'api.md',
      readPage('# The REST API\n\n## Conventions\n\n### Pagination\n\n```sh\n# not a heading\n```\n'),
    ],
    [
      'cli.md',
      readPage('# CLI\n\n### What `vnode start` reports\n\n## The server: limits, health, headers\n'),
    ],
  ]);
  const problemsOf = (file: string, text: string): string[] =>
    checkText(file, text, pages).map((p) => p.problem);

  it('makes GitHub anchors', () => {
    expect(slug('What `vnode start` reports')).toBe('what-vnode-start-reports');
    expect(slug('3. Names and labels the node uses')).toBe('3-names-and-labels-the-node-uses');
    expect(readPage('# A\n## A\n').anchors).toEqual(new Set(['a', 'a-1']));
  });

  it('accepts references to pages, anchors and quoted headings that exist', () => {
    expect(problemsOf('packages/x/src/a.ts', '/** Pages (docs/api.md#pagination). */')).toEqual([]);
    expect(problemsOf('packages/x/src/a.ts', '// docs/cli.md, "What `vnode start` reports"')).toEqual([]);
    expect(problemsOf('packages/x/src/a.ts', '// docs/cli.md, "The server: …, headers"')).toEqual([]);
    expect(problemsOf('docs/cli.md', 'See [the API](api.md#conventions) and [below](#cli).')).toEqual([]);
    expect(problemsOf('clients/a.py', 'SPEC.json: {"file": "docs/api.md", "blocks": []}')).toEqual([]);
    expect(problemsOf('packages/x/src/a.ts', '// RSAES-PKCS1-v1_5 (RFC 8017 \u00a77.2.2)')).toEqual([]);
  });

  it('refuses pages, anchors and headings that do not exist', () => {
    expect(problemsOf('packages/x/src/a.ts', '// docs/nowhere.md')).toEqual([
      'docs/nowhere.md does not exist',
    ]);
    expect(problemsOf('packages/x/src/a.ts', '// docs/api.md#sorting')).toEqual([
      'docs/api.md has no heading with the anchor #sorting',
    ]);
    expect(problemsOf('clients/r/R/a.R', '# docs/api.md, "Sorting"')).toEqual([
      'docs/api.md has no heading "Sorting"',
    ]);
    expect(problemsOf('docs/cli.md', '[x](api.md#not-here)')).toEqual([
      'docs/api.md has no heading with the anchor #not-here',
    ]);
    expect(problemsOf('docs/cli.md', '[x](#not-here)')).toEqual([
      'docs/cli.md has no heading with the anchor #not-here',
    ]);
  });

  it('refuses citations of the external specification', () => {
    const spec = ['algorithm', 'container'].join('-');
    expect(problemsOf('packages/x/src/a.ts', `// (${spec}.md \u00a75)`)).toHaveLength(2);
    expect(problemsOf('packages/x/src/a.ts', '// (api.md \u00a71.4)')).toEqual([
      'a section number (\u00a7): cite docs/<page>.md#<anchor> or a quoted heading instead',
      'cites api.md without docs/: write docs/api.md',
    ]);
    expect(problemsOf('packages/x/src/a.ts', '// (node-protocol \u00a76.4)')).toHaveLength(1);
    expect(problemsOf('clients/python/a.py', `# see ${['auth', 'rbac'].join('-')}`)).toHaveLength(1);
  });
});
