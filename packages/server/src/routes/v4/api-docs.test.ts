/**
 * `/v4/apidocs` and `/v4/apispec.json`: the 4.x surface's own OpenAPI document, with its routes, 4.x's answer
 * shapes and its filters; the 3.x document stays the 3.x surface's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('the OpenAPI document of the 4.x surface', () => {
  it('lists the 4.x routes with 4.x answers, open to read without a token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v4/apispec.json' });
    expect(res.statusCode).toBe(200);
    const doc = JSON.parse(res.body);
    expect(doc.openapi).toBe('3.0.3');
    const paths = Object.keys(doc.paths);
    for (const p of [
      '/v4/api/task/{id}/status',
      '/v4/api/run',
      '/v4/api/run/{id}',
      '/v4/api/result',
      '/v4/api/organization',
    ])
      expect(paths).toContain(p);
    expect(paths.some((p) => !p.startsWith('/v4/api/'))).toBe(false);
    expect(paths).not.toContain('/v4/api/role/{id}/rule');
    expect(paths).toContain('/v4/api/study/{id}/organization');
    expect(Object.keys(doc.paths['/v4/api/run/{id}'])).toEqual(expect.arrayContaining(['get', 'patch']));
    const task = doc.paths['/v4/api/task/{id}'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(task.properties)).toEqual(
      expect.arrayContaining(['job_id', 'init_org', 'runs', 'databases']),
    );
    expect(task.properties).not.toHaveProperty('run_id');
    const listing = doc.paths['/v4/api/task'].get;
    expect(listing.responses['200'].content['application/json'].schema.properties).toHaveProperty('links');
    expect(listing.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['page', 'per_page', 'collaboration_id']),
    );
    expect(JSON.stringify(doc)).not.toContain('"$id"');
  });

  it('draws its pages with scripts from the server only', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/v4/apidocs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toContain('/v4/apidocs/init.js');
    const init = await t.app.inject({ method: 'GET', url: '/v4/apidocs/init.js' });
    expect(init.body).toContain("url: '/v4/apispec.json'");
    const bundle = await t.app.inject({ method: 'GET', url: '/apidocs/static/swagger-ui-bundle.js' });
    expect(bundle.statusCode).toBe(200);
  });

  it('leaves the 3.x document to the 3.x surface', async () => {
    const doc = JSON.parse((await t.app.inject({ method: 'GET', url: '/apispec_1.json' })).body);
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/v4/'))).toBe(false);
  });
});
