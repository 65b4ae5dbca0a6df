import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

// CORS origins and the security headers of every answer (docs/security.md, "The server: …, headers").

describe('CORS by default: only the server’s own origin', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect: 'sqlite' });
  });
  afterAll(async () => t.close());

  it('gives no Access-Control-Allow-Origin to a foreign page, neither on a call nor on a preflight', async () => {
    const r = await t.api('GET', '/organization', {
      token: t.rootToken,
      headers: { origin: 'https://evil.example.org' },
    });
    expect(r.status).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
    const pre = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/organization',
      headers: {
        origin: 'https://evil.example.org',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('sends the security headers on the API, on errors and on /apidocs', async () => {
    for (const url of ['/api/version', '/api/no-such-thing', '/apidocs/', '/apispec_1.json']) {
      const r = await t.app.inject({ method: 'GET', url });
      expect({ url, nosniff: r.headers['x-content-type-options'] }).toEqual({ url, nosniff: 'nosniff' });
      expect(r.headers['x-frame-options']).toBe('DENY');
      expect(r.headers['referrer-policy']).toBe('no-referrer');
      expect(r.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
    const page = await t.app.inject({ method: 'GET', url: '/apidocs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    const json = await t.app.inject({ method: 'GET', url: '/api/version' });
    expect(json.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
  });
});

describe('CORS with configured origins', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect: 'sqlite', config: { cors_origins: ['https://ui.example.org'] } });
  });
  afterAll(async () => t.close());

  it('allows the listed origin and no other', async () => {
    const ok = await t.api('GET', '/version', { headers: { origin: 'https://ui.example.org' } });
    expect(ok.headers['access-control-allow-origin']).toBe('https://ui.example.org');
    expect(String(ok.headers['access-control-expose-headers'])).toContain('total-count');
    const other = await t.api('GET', '/version', { headers: { origin: 'https://evil.example.org' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses an origin that is not an origin at start, naming the key', async () => {
    await expect(
      startTestApp({ dialect: 'sqlite', config: { cors_origins: ['ui.example.org/x'] } }),
    ).rejects.toThrow(/cors_origins/);
  });
});
