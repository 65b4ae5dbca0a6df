/**
 * Checks the references from the code and the docs to the docs: every `docs/<page>.md` names a page of `docs/`,
 * every `#anchor` or quoted heading after it names a heading of that page, every Markdown link between docs pages
 * resolves, and nothing cites the external specification Federa follows (it is not in the repository: what Federa
 * keeps is written in docs/). Run by `scripts/doc-references.test.ts`.
 *
 * Accepted forms of a reference: `docs/api.md`, `docs/api.md#pagination`, `docs/security.md, "Input limits"` (the
 * quoted text is a heading, or its beginning; `…` stands for any text); in docs pages also `[text](api.md#anchor)`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface DocProblem {
  /** Repository-relative path of the file holding the reference. */
  readonly file: string;
  readonly line: number;
  readonly problem: string;
}

/** A docs page: its headings as GitHub anchors and as plain text. */
export interface DocPage {
  readonly anchors: ReadonlySet<string>;
  readonly headings: readonly string[];
}

/** Folders and files scanned for references, relative to the repository root. */
export const SCANNED = [
  'packages',
  'clients',
  'scripts',
  'bench',
  'algorithms',
  'images',
  'docs',
  'README.md',
  'CHANGELOG.md',
];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', '.data', '__pycache__', '.pytest_cache']);
const TEXT_FILE = /\.(ts|tsx|mts|mjs|js|cjs|py|R|r|md|sh|ya?ml|json|Dockerfile)$|(^|\/)Dockerfile[^/]*$/;
/** The checker and its test spell out the forms they refuse. */
const SELF = new Set(['scripts/doc-references.ts', 'scripts/doc-references.test.ts']);

/** The files of the external specification, which are not in the repository. */
const SPEC_FILES = ['algorithm-container', 'auth-rbac', 'cli-config', 'seed-behavior'];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to `-`. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The headings of a Markdown text (outside code fences), with GitHub's numbering of repeated anchors. */
export function readPage(markdown: string): DocPage {
  const anchors = new Set<string>();
  const headings: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m?.[1]) continue;
    const text = m[1];
    headings.push(text.replace(/`/g, ''));
    const base = slug(text);
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return { anchors, headings };
}

/** Whether a quoted section name names a heading: equal to one, or its beginning; `…` matches any text. */
function headingMatches(page: DocPage, quoted: string): boolean {
  const norm = (s: string): string => s.replace(/`/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
  const parts = norm(quoted)
    .split('…')
    .map((p) => p.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(`^${parts.join('.*')}`);
  return page.headings.some((h) => pattern.test(norm(h)));
}

/** The problems of one file's text. `file` is repository-relative; `pages` maps `api.md` to its page. */
export function checkText(file: string, text: string, pages: ReadonlyMap<string, DocPage>): DocProblem[] {
  const problems: DocProblem[] = [];
  const inDocs = file.startsWith('docs/');
  const lines = text.split('\n');
  const report = (line: number, problem: string): void => {
    problems.push({ file, line: line + 1, problem });
  };
  const checkTarget = (
    i: number,
    page: string,
    anchor: string | undefined,
    quoted: string | undefined,
  ): void => {
    const target = pages.get(page);
    if (!target) {
      report(i, `docs/${page} does not exist`);
      return;
    }
    if (anchor !== undefined && !target.anchors.has(anchor))
      report(i, `docs/${page} has no heading with the anchor #${anchor}`);
    if (quoted !== undefined && !headingMatches(target, quoted))
      report(i, `docs/${page} has no heading "${quoted}"`);
  };
  lines.forEach((line, i) => {
    // Section numbers belong to documents outside the repository (RFCs excepted): cite a heading instead.
    for (const m of line.matchAll(/§/g)) {
      const before = line.slice(0, m.index);
      if (!/RFC\s*\d+\s*$/.test(before))
        report(i, 'a section number (§): cite docs/<page>.md#<anchor> or a quoted heading instead');
    }
    for (const name of SPEC_FILES) {
      if (new RegExp(`\\b${name}\\b`).test(line))
        report(i, `cites ${name}, a specification file outside the repository: cite the docs/ page instead`);
    }
    if (/shared\/spec|\.\.\/shared\//.test(line))
      report(i, 'cites the specification folder outside the repository');
    // `docs/<page>.md`, optionally `#anchor` or `, "Heading"`.
    for (const m of line.matchAll(
      /\bdocs\/([A-Za-z0-9_.-]+\.md)(#[A-Za-z0-9_-]+)?(?:(?:,\s*|\s+)"([\p{L}`][^"]*)")?/gu,
    )) {
      const [, page = '', hash, quoted] = m;
      checkTarget(i, page, hash?.slice(1), quoted);
    }
    if (!inDocs) {
      // Outside docs/, a bare page name of the contract reads like the external specification.
      for (const m of line.matchAll(/(^|[^/\w-])(api|node-protocol)\.md\b/g))
        report(i, `cites ${m[2]}.md without docs/: write docs/${m[2]}.md`);
      return;
    }
    // Markdown links between docs pages.
    for (const m of line.matchAll(/\]\(([A-Za-z0-9_.-]+\.md)?(#[A-Za-z0-9_-]+)?\)/g)) {
      const [, page, hash] = m;
      if (page === undefined && hash === undefined) continue;
      const own = file.slice('docs/'.length);
      if (page === 'README.md') continue;
      checkTarget(i, page ?? own, hash?.slice(1), undefined);
    }
  });
  return problems;
}

function walk(root: string, path: string, out: string[]): void {
  const full = join(root, path);
  const st = statSync(full, { throwIfNoEntry: false });
  if (!st) return;
  if (st.isFile()) {
    if (TEXT_FILE.test(path)) out.push(path);
    return;
  }
  if (!st.isDirectory()) return;
  for (const entry of readdirSync(full)) {
    if (SKIPPED_DIRS.has(entry)) continue;
    walk(root, join(path, entry), out);
  }
}

/** The docs pages of a repository by file name. */
export function readPages(root: string): Map<string, DocPage> {
  const pages = new Map<string, DocPage>();
  for (const name of readdirSync(join(root, 'docs'))) {
    if (name.endsWith('.md')) pages.set(name, readPage(readFileSync(join(root, 'docs', name), 'utf8')));
  }
  return pages;
}

/** Every problem of the repository at `root`. */
export function findDocReferenceProblems(root: string): DocProblem[] {
  const pages = readPages(root);
  const files: string[] = [];
  for (const entry of SCANNED) walk(root, entry, files);
  return files
    .map((f) => relative(root, join(root, f)).split('\\').join('/'))
    .filter((f) => !SELF.has(f))
    .flatMap((f) => checkText(f, readFileSync(join(root, f), 'utf8'), pages));
}
