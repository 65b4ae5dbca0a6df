import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderErrorsMarkdown } from './errors-doc.js';
import { renderOpenApiJson } from './openapi-doc.js';

/** Writes the generated reference documents (`docs/errors.md`, `docs/openapi.json`) into `rootDir`. */
export async function writeReferenceDocs(rootDir: string): Promise<string[]> {
  const files = [
    [join(rootDir, 'docs', 'errors.md'), renderErrorsMarkdown()],
    [join(rootDir, 'docs', 'openapi.json'), await renderOpenApiJson()],
  ] as const;
  for (const [path, text] of files) writeFileSync(path, text);
  return files.map(([p]) => p);
}
