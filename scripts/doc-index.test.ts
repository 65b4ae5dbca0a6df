/** docs/README.md is the index of the documentation: it links every document in docs/, and only those. */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const docs = fileURLToPath(new URL('../docs/', import.meta.url));

/** The documents an index links with `[…](name)`, in the order it names them. */
export function indexedDocuments(index: string): string[] {
  return [...index.matchAll(/\]\(([a-z0-9-]+\.(?:md|json))\)/g)].map((m) => m[1]!);
}

describe('the index of the documentation', () => {
  it('links every document in docs/ and no other', () => {
    const present = readdirSync(docs).filter((n) => /\.(md|json)$/.test(n) && n !== 'README.md');
    const indexed = indexedDocuments(readFileSync(`${docs}README.md`, 'utf8'));
    expect([...new Set(indexed)].sort()).toEqual(present.sort());
  });

  it('reads the links of a table row', () => {
    expect(
      indexedDocuments('| [one](one-page.md) | see [two](two.json) and [a site](https://x.org) |'),
    ).toEqual(['one-page.md', 'two.json']);
  });
});
