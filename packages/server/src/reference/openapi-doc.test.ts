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

  it("documents the algorithm store's routes under its own prefix", async () => {
    const doc = JSON.parse(await renderOpenApiJson()) as { paths: Record<string, Record<string, unknown>> };
    const store = [
      'get /algorithm',
      'post /algorithm',
      'get /algorithm/{id}',
      'patch /algorithm/{id}',
      'delete /algorithm/{id}',
      'post /algorithm/{id}/invalidate',
      'get /algorithm/{id}/function',
      'get /algorithm/{id}/function/{name}',
      'get /review',
      'post /review',
      'post /review/{id}/approve',
      'post /review/{id}/reject',
      'get /policy',
      'patch /policy',
      'get /role',
      'get /user',
      'post /user',
    ];
    const missing = store.filter((key) => {
      const [method, path] = key.split(' ') as [string, string];
      return !doc.paths[`/store/api${path}`]?.[method];
    });
    expect(missing).toEqual([]);
    const body = doc.paths['/store/api/algorithm']?.post as { requestBody?: unknown } | undefined;
    expect(JSON.stringify(body?.requestBody)).toContain('vantage6_version');
  });
});
