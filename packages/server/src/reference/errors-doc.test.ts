import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderErrorsMarkdown } from './errors-doc.js';
import { ERROR_CODES } from '../errors.js';

describe('docs/errors.md', () => {
  it('is current with the error table (run `npm run docs` after changing errors.ts)', () => {
    const committed = readFileSync(new URL('../../../../docs/errors.md', import.meta.url), 'utf8');
    expect(committed).toBe(renderErrorsMarkdown());
  });

  it('documents every error code', () => {
    const doc = renderErrorsMarkdown();
    for (const code of Object.keys(ERROR_CODES)) expect(doc).toContain(`\`${code}\``);
  });
});
