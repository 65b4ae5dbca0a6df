/**
 * The code examples of the documentation, as a reader sees them: every fenced block of README.md,
 * algorithms/README.md and docs/*.md, with its language and line. A block in a language a reader would run
 * (python, js, ts, r) is run by docs-examples.docker.test.ts, unless the line right above its fence says why it
 * is not:
 *
 *     <!-- not-run: the signature of the constructor, not a script -->
 *
 * (an HTML comment: invisible on the rendered page).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Fence languages whose blocks a reader pastes and runs. */
export const RUNNABLE_LANGUAGES = new Set([
  'python',
  'py',
  'js',
  'mjs',
  'javascript',
  'ts',
  'typescript',
  'r',
]);

export interface DocBlock {
  /** Path from the repository root, e.g. `docs/client-python.md`. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The fence's language, lower case (`''` when it has none). */
  readonly lang: string;
  readonly code: string;
  /** The reason given by a `<!-- not-run: … -->` marker right above the fence, or null. */
  readonly notRun: string | null;
}

const MARKER = /^<!--\s*not-run:\s*(.+?)\s*-->\s*$/;

/** The fenced blocks of one markdown file. */
export function docBlocks(root: string, file: string): DocBlock[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```\s*([\w-]*)\s*$/.exec(lines[i] ?? '');
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] ?? ''); i++) body.push(lines[i] ?? '');
    const marker = MARKER.exec(lines[start - 1] ?? '');
    blocks.push({
      file,
      line: start + 1,
      lang: (open[1] ?? '').toLowerCase(),
      code: `${body.join('\n')}\n`,
      notRun: marker?.[1] ?? null,
    });
  }
  return blocks;
}

/** The markdown files a reader copies code from. */
export function docFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', 'algorithms/README.md', ...docs];
}

/** The blocks of `file` in `langs` that are to be run (no not-run marker), in order. */
export function runnableBlocks(root: string, file: string, langs: readonly string[]): DocBlock[] {
  return docBlocks(root, file).filter((b) => langs.includes(b.lang) && b.notRun === null);
}

/** Where a block is, for messages: `docs/client-python.md:69`. */
export const where = (b: DocBlock): string => `${b.file}:${b.line}`;
