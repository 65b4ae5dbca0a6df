import pino from 'pino';
import { buildApp } from '../app.js';
import { parseServerConfig } from '../config/load.js';
import { createContext } from '../create-context.js';

/** The OpenAPI document the server serves at `/apidocs/json`, rendered from an app on an in-memory database. */
export async function renderOpenApiJson(): Promise<string> {
  const config = parseServerConfig(
    {
      uri: 'sqlite://',
      bcrypt_rounds: 4,
      root_user: { email: 'root@example.org', password: 'Reference-Doc-1!' },
    },
    'reference.yaml',
  );
  const { ctx } = await createContext({ config, dataDir: process.cwd(), log: pino({ level: 'silent' }) });
  const app = await buildApp(ctx);
  try {
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app.close();
    await ctx.dbh.close();
  }
}
