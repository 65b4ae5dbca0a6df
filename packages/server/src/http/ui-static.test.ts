import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestApp, type TestApp } from '@federa/testing';
import { UI_CSP } from './ui-static.js';

// A stand-in for packages/ui/dist: the routes serve whatever the build wrote there.
const dir = mkdtempSync(join(tmpdir(), 'federa-ui-static-'));
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});`;

beforeAll(() => {
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html><head><title>Federa</title><script type="module" src="./assets/app-1a2b.js"></script></head><body></body></html>',
  );
  writeFileSync(join(dir, 'assets', 'app-1a2b.js'), SCRIPT);
  writeFileSync(join(dir, 'secret.txt'), 'not for callers');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the web UI is served by the server', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ config: { ui: { directory: dir } } });
  });
  afterAll(async () => t.close());

  it('GET / answers the page, with the API prefix written in and the security headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<meta name="federa-api-path" content="/api" />');
    // No mail server here: the login page does not offer password recovery.
    expect(res.body).toContain('<meta name="federa-password-recovery" content="off" />');
    expect(res.headers['content-security-policy']).toBe(UI_CSP);
    expect(UI_CSP).toContain("script-src 'self'");
    expect(UI_CSP).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('serves assets compressed and cacheable, and nothing else from the folder', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/assets/app-1a2b.js',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(res.rawPayload).toString()).toBe(SCRIPT);
    expect(res.headers['cache-control']).toContain('immutable');
    for (const url of [
      '/assets/../secret.txt',
      '/assets/%2e%2e%2fsecret.txt',
      '/secret.txt',
      '/assets/nope.js',
    ]) {
      const miss = await t.app.inject({ method: 'GET', url });
      expect(miss.statusCode, url).toBe(404);
      expect(miss.body).not.toContain('not for callers');
    }
  });

  it('leaves the API and its error answers as they were', async () => {
    const res = await t.api('GET', '/version');
    expect(res.status).toBe(200);
    const missing = await t.app.inject({ method: 'GET', url: '/api/nothing-here' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'route_not_found' });
  });
});

describe('the UI can be moved or turned off', () => {
  it('ui.path moves it', async () => {
    const t = await startTestApp({ config: { ui: { directory: dir, path: '/ui/' } } });
    try {
      expect((await t.app.inject({ method: 'GET', url: '/ui/' })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: '/ui/assets/app-1a2b.js' })).statusCode).toBe(200);
      const root = await t.app.inject({ method: 'GET', url: '/' });
      expect(root.statusCode).toBe(404);
      expect(root.json()).toMatchObject({ msg: 'No such endpoint: GET /' });
    } finally {
      await t.close();
    }
  });

  it('ui.enabled: false turns it off', async () => {
    const t = await startTestApp({ config: { ui: { directory: dir, enabled: false } } });
    try {
      expect((await t.app.inject({ method: 'GET', url: '/' })).statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('a folder without a built UI serves nothing (and the server still starts)', async () => {
    const t = await startTestApp({ config: { ui: { directory: join(dir, 'missing') } } });
    try {
      expect((await t.app.inject({ method: 'GET', url: '/' })).statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('a bad ui.path is refused with the key named', async () => {
    await expect(startTestApp({ config: { ui: { path: 'ui' } } })).rejects.toThrow(/ui\.path/);
  });
});

describe('password recovery in the page', () => {
  it('is said to be on when a mail server is configured', async () => {
    const t = await startTestApp({
      config: { ui: { directory: dir } },
      mailer: { describe: () => 'smtp://mail.example.org:587', send: async () => undefined },
    });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/' });
      expect(res.body).toContain('<meta name="federa-password-recovery" content="on" />');
    } finally {
      await t.close();
    }
  });
});
