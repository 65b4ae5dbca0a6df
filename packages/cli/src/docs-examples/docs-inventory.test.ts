/**
 * Every code block of the documentation in a language a reader runs (python, js, ts, r) is run by
 * docs-examples.docker.test.ts (its page and language are in run-here.ts), or the line above its fence says why
 * not: `<!-- not-run: why -->`. No Docker needed: this is what fails first when a page gains an example.
 */
import { describe, expect, it } from 'vitest';

import { RUNNABLE_LANGUAGES, docBlocks, docFiles, where } from './doc-blocks.js';
import { RUN_HERE } from './run-here.js';
import { REPO } from './run-example.js';

describe('the inventory of the documentation’s examples', () => {
  it('runs every block a reader would run, or the page says why it is not run', () => {
    const unrun: string[] = [];
    for (const file of docFiles(REPO)) {
      for (const block of docBlocks(REPO, file)) {
        if (!RUNNABLE_LANGUAGES.has(block.lang) || block.notRun !== null) continue;
        if (!RUN_HERE.some((r) => r.file === file && r.langs.includes(block.lang)))
          unrun.push(`${where(block)} (${block.lang})`);
      }
    }
    expect(unrun, 'run these in docs-examples.docker.test.ts, or mark them <!-- not-run: why -->').toEqual(
      [],
    );
  });

  it('finds the blocks and their markers as a reader sees them', () => {
    const tour = docBlocks(REPO, 'docs/client-typescript.md');
    const signature = tour.find((b) => b.lang === 'ts');
    expect(signature?.notRun).toBe("the constructor's signature, not a script");
    expect(signature?.code).toMatch(/^new UserClient\(/);
    expect(tour.filter((b) => b.lang === 'js' && b.notRun === null).length).toBeGreaterThanOrEqual(5);
    for (const entry of RUN_HERE)
      for (const lang of entry.langs)
        expect(
          docBlocks(REPO, entry.file).some((b) => b.lang === lang && b.notRun === null),
          `${entry.file} has ${lang} blocks to run`,
        ).toBe(true);
  });
});
