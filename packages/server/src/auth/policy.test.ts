import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startTestApp, type TestApp } from '@federa/testing';
import { buildApp, MissingPolicyError } from '../app.js';
import { POLICIES } from './policy.js';
import { RULES } from './rules.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('the policy table', () => {
  it('has a registered route for every entry (no stale entries)', () => {
    const stale = Object.keys(POLICIES).filter((key) => {
      const [method, path] = key.split(' ') as [string, string];
      return !t.app.hasRoute({ method: method as 'GET', url: `/api${path}` });
    });
    expect(stale).toEqual([]);
  });

  it('names only rules of the catalogue', () => {
    const known = new Set(RULES.map((r) => r.key));
    const unknown = Object.entries(POLICIES).flatMap(([route, p]) =>
      (p.anyOf ?? []).filter((r) => !known.has(r)).map((r) => `${route}: ${r}`),
    );
    expect(unknown).toEqual([]);
  });

  it('makes the app refuse to start with a route that has no policy, naming it', async () => {
    const attempt = buildApp(t.ctx, {
      logger: pino({ level: 'silent' }),
      extraRoutes: [
        async (app) => {
          app.get('/unguarded', async () => ({ ok: true }));
        },
      ],
    });
    await expect(attempt).rejects.toBeInstanceOf(MissingPolicyError);
    await expect(attempt).rejects.toThrow('GET /unguarded');
  });
});
