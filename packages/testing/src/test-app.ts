import type { LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import {
  buildApp,
  createContext,
  openSession,
  parseServerConfig,
  type App,
  type AppContext,
  type EventBus,
  type Mailer,
  type ServerConfig,
} from '@federa/server';
import type { Tracing } from '@federa/common/tracing';
import { createTestDatabase, type TestDatabase } from './database.js';
import { Fixtures } from './fixtures.js';

export const ROOT_PASSWORD = 'Root-Password-1!';

export interface ApiResponse {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: LightMyRequestResponse['headers'];
  raw: LightMyRequestResponse;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  query?: Record<string, string | number | boolean | (string | number)[]>;
  headers?: Record<string, string>;
  /** The client's address as the server sees it (default 127.0.0.1). */
  remoteAddress?: string;
}

export interface TestApp {
  app: App;
  ctx: AppContext;
  db: TestDatabase;
  fx: Fixtures;
  /** An access token of the root user. */
  rootToken: string;
  /** Calls the API (path relative to `/api`) through `app.inject`, parsing the JSON answer. */
  api(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  /** Logs in through `POST /api/token/user` and returns the access token (throws when refused). */
  login(username: string, password: string): Promise<string>;
  /** Serves the app on a free port of 127.0.0.1 (for a real client) and returns the port. */
  listen(): Promise<number>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Overrides FEDERA_TEST_DB for tests about one dialect's behaviour. */
  dialect?: 'sqlite' | 'postgres';
  config?: Partial<Record<keyof ServerConfig, unknown>>;
  mailer?: Mailer | null;
  events?: EventBus;
  /** A folder for the audit log (docs/audit.md); without it the app keeps none. */
  auditDir?: string;
  /** Where the app logs (default: silent, or FEDERA_TEST_LOG's level). */
  log?: pino.Logger;
  /** Tracing with an exporter of the test's own (docs/observability.md#traces); default: as configured. */
  tracing?: Tracing;
}

/**
 * Starts the real app on a throwaway database of the dialect under test (FEDERA_TEST_DB), with a root user
 * whose password is {@link ROOT_PASSWORD}. Nothing is mocked.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const db = await createTestDatabase(options.dialect);
  // What is open so far, closed last first: a start that fails (a refused configuration, a migration) leaves no
  // database behind, as a successful start's close() does not.
  const opened: (() => Promise<unknown>)[] = [() => db.drop()];
  const close = async (): Promise<void> => {
    for (const closeOne of opened.splice(0).reverse()) await closeOne();
  };
  try {
    return await startOn(db, options, opened, close);
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

async function startOn(
  db: TestDatabase,
  options: TestAppOptions,
  opened: (() => Promise<unknown>)[],
  close: () => Promise<void>,
): Promise<TestApp> {
  const config = parseServerConfig(
    {
      uri: db.uri,
      jwt_secret_key: 'test-secret-key-that-is-long-enough',
      bcrypt_rounds: 4,
      root_user: { email: 'root@example.org', password: ROOT_PASSWORD },
      logging: { level: 'silent' },
      ...options.config,
    },
    'test-config.yaml',
  );
  const log = options.log ?? pino({ level: process.env.FEDERA_TEST_LOG ?? 'silent' });
  const { ctx } = await createContext({
    config,
    dataDir: process.cwd(),
    log,
    mailer: options.mailer ?? null,
    ...(options.events ? { events: options.events } : {}),
    ...(options.auditDir ? { auditDir: options.auditDir } : {}),
    ...(options.tracing ? { tracing: options.tracing } : {}),
  });
  opened.push(
    async () => ctx.vpn?.close(),
    () => ctx.dbh.close(),
    async () => ctx.audit?.close(),
  );
  const app = await buildApp(ctx, { logger: log });
  opened.push(() => app.close());
  const api: TestApp['api'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    const query: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(o.query ?? {}))
      query[k] = Array.isArray(v) ? v.map(String) : String(v);
    const res = await app.inject({
      method: method as 'GET',
      url: `${config.api_path}${path}`,
      headers,
      query,
      ...(o.remoteAddress ? { remoteAddress: o.remoteAddress } : {}),
      ...(o.body !== undefined
        ? {
            payload: typeof o.body === 'string' ? o.body : JSON.stringify(o.body),
            headers: { 'content-type': 'application/json', ...headers },
          }
        : {}),
    });
    let body: unknown = res.body;
    try {
      body = res.body === '' ? null : JSON.parse(res.body);
    } catch {
      /* not JSON: keep text */
    }
    return { status: res.statusCode, body, headers: res.headers, raw: res };
  };
  const login = async (username: string, password: string): Promise<string> => {
    const r = await api('POST', '/token/user', { body: { username, password } });
    if (r.status !== 200)
      throw new Error(`login of ${username} refused: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.access_token as string;
  };
  const rootToken = await login('root', ROOT_PASSWORD).catch(async () => {
    // Until the token route exists, sign directly.
    const root = await ctx.dbh.db
      .selectFrom('user')
      .select('id')
      .where('username', '=', 'root')
      .executeTakeFirstOrThrow();
    return (await openSession(ctx, 'user', root.id)).access_token;
  });
  const listen = async (): Promise<number> => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (typeof address !== 'object' || address === null) throw new Error('the test app has no TCP address');
    return address.port;
  };
  return {
    app,
    ctx,
    db,
    fx: new Fixtures(ctx),
    rootToken,
    api,
    login,
    listen,
    close,
  };
}
