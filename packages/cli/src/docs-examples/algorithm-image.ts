/**
 * Building an algorithm image from the documentation's own source, as its reader would: the files of the page's
 * code block (split at their `# main.py` / `// src/main.ts` headings), the page's Dockerfile, and the repository
 * files that Dockerfile copies.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { REPO } from './run-example.js';

/**
 * The files of a block that holds several, each starting at a comment line naming it (`# average.py`,
 * `// src/main.ts`): `{ 'average.py': '…', 'main.py': '…' }`.
 */
export function splitFiles(code: string): Record<string, string> {
  const files: Record<string, string> = {};
  let current: string | null = null;
  for (const line of code.split('\n')) {
    const heading = /^(?:#|\/\/)\s*([\w./-]+\.(?:py|ts))\s*$/.exec(line);
    if (heading?.[1]) {
      current = heading[1];
      files[current] = '';
    }
    if (current !== null) files[current] += `${line}\n`;
  }
  return files;
}

/** `docker build` of `dockerfile` in a context of `repoPaths` (copied from the checkout) and `files` (text). */
export function buildDocImage(
  image: string,
  dockerfile: string,
  repoPaths: readonly string[],
  files: Record<string, string>,
): void {
  const ctx = mkdtempSync(join(tmpdir(), 'federa-docs-image-'));
  try {
    for (const p of repoPaths)
      cpSync(join(REPO, p), join(ctx, p), {
        recursive: true,
        filter: (src) => !src.includes('__pycache__') && !src.endsWith('.tsbuildinfo'),
      });
    for (const [p, text] of Object.entries(files)) {
      mkdirSync(dirname(join(ctx, p)), { recursive: true });
      writeFileSync(join(ctx, p), text);
    }
    writeFileSync(join(ctx, 'Dockerfile'), dockerfile);
    execFileSync('docker', ['build', '-q', '-t', image, ctx], { stdio: ['ignore', 'ignore', 'pipe'] });
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
}

/** Removes images this test built. */
export function removeImages(images: readonly string[]): void {
  for (const image of images) {
    try {
      execFileSync('docker', ['rmi', '-f', image], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  }
}
