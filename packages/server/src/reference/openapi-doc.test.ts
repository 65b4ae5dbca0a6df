import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderOpenApiJson } from './openapi-doc.js';
import { POLICIES } from '../auth/policy.js';

describe('docs/openapi.json', () => {
  it('is current with the routes (run `npm run docs` after changing a route)', async () => {
    const committed = readFileSync(new URL('../../../../docs/openapi.json', import.meta.url), 'utf8');
    expect(JSON.parse(committed)).toEqual(JSON.parse(await renderOpenApiJson()));
  });

  it('documents every route of the policy table', async () => {
    const doc = JSON.parse(await renderOpenApiJson()) as { paths: Record<string, Record<string, unknown>> };
    const missing = Object.keys(POLICIES).filter((key) => {
      const [method, path] = key.split(' ') as [string, string];
      const openapiPath = `/api${path.replace(/:([a-z_]+)/g, '{$1}')}`;
      return !doc.paths[openapiPath]?.[method.toLowerCase()];
    });
    expect(missing).toEqual([]);
  });
});
