import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { buildApp } from './app.js';
import { parseServerConfig } from './config/load.js';
import { createContext } from './create-context.js';

/** An app on an in-memory database whose log lines are collected. */
async function appWithLog(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const log = pino({ level }, stream);
  const config = parseServerConfig(
    {
      uri: 'sqlite://',
      bcrypt_rounds: 4,
      root_user: { email: 'root@example.org', password: 'Log-Test-Root-1!' },
    },
    'log-test.yaml',
  );
  const { ctx } = await createContext({ config, dataDir: process.cwd(), log });
  const app = await buildApp(ctx, { logger: log });
  return { app, ctx, lines };
}

describe('request logging', () => {
  it('writes one structured line per request at debug level, and none at info level', async () => {
    for (const [level, expected] of [
      ['debug', 1],
      ['info', 0],
    ] as const) {
      const { app, ctx, lines } = await appWithLog(level);
      const res = await app.inject({ method: 'GET', url: '/api/version' });
      expect(res.statusCode).toBe(200);
      const requests = lines.filter((l) => l.event === 'http.request');
      expect(requests).toHaveLength(expected);
      if (expected) expect(requests[0]).toMatchObject({ method: 'GET', url: '/api/version', status: 200 });
      await app.close();
      await ctx.dbh.close();
    }
  });
});
