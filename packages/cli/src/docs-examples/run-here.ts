/**
 * The pages and languages whose blocks docs-examples.docker.test.ts runs: every block of these pages in these
 * languages that has no `<!-- not-run: why -->` marker (doc-blocks.ts). docs-inventory.test.ts fails on any other
 * block a reader would run; the Docker test checks at its end that it ran exactly these.
 */
export const RUN_HERE: readonly { readonly file: string; readonly langs: readonly string[] }[] = [
  { file: 'README.md', langs: ['js', 'python'] },
  { file: 'algorithms/README.md', langs: ['python'] },
  { file: 'docs/first-hour-researcher.md', langs: ['python', 'js'] },
  { file: 'docs/client-python.md', langs: ['python'] },
  { file: 'docs/client-typescript.md', langs: ['js'] },
  { file: 'docs/client-r.md', langs: ['r'] },
  { file: 'docs/algorithm-development.md', langs: ['python', 'ts'] },
];
