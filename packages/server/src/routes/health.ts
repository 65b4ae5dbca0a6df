import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { authenticate } from '../auth/authenticate.js';
import { RULES } from '../auth/rules.js';

const HealthSchema = Type.Object({
  database: Type.Boolean({ description: 'Does the database answer a trivial query?' }),
  version: Type.String({ description: 'Server version' }),
  dialect: Type.Optional(Type.String({ description: 'root only: `sqlite` or `postgres`' })),
  broker: Type.Optional(
    Type.Union([Type.Boolean(), Type.Null()], {
      description:
        'root only: does the message broker (message_broker) answer? null: none configured (one instance)',
    }),
  ),
  mail: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description:
        'root only: the SMTP server as `smtp://host:port (starttls|implicit-tls|none)`, never credentials; null: none',
    }),
  ),
  pool: Type.Optional(
    Type.Union(
      [Type.Object({ total: Type.Integer(), idle: Type.Integer(), waiting: Type.Integer() }), Type.Null()],
      { description: 'root only: connections of the PostgreSQL pool; null on SQLite' },
    ),
  ),
  resets: Type.Optional(Type.Integer({ description: 'root only: pool replacements by /health/fix' })),
});

const FixSchema = Type.Object({
  database: Type.Boolean({ description: 'Does the database answer now?' }),
  replaced: Type.Boolean({ description: 'Was the connection pool replaced by this call?' }),
  resets: Type.Integer({ description: 'Pool replacements since the server started' }),
  retry_after: Type.Optional(
    Type.Integer({ description: 'The pool is broken but was replaced recently: seconds to wait' }),
  ),
});

/** The rule keys of the root role: every rule. */
const ALL_RULES = RULES.map((r) => r.key);

/**
 * Whether the request carries the access token of a user holding every rule (the root role). A missing or
 * invalid token is no error here: the caller is simply anonymous.
 */
async function isRoot(ctx: AppContext, request: FastifyRequest): Promise<boolean> {
  if (!request.headers.authorization) return false;
  try {
    const caller = await authenticate(ctx, request, { callers: ['user'] });
    return caller !== null && ALL_RULES.every((k) => caller.rules.has(k));
  } catch {
    return false;
  }
}

/**
 * `/health`, `/health/fix` and `/version` (docs/api.md#health-and-version). No token needed; `/health` tells anonymous callers only
 * whether the database answers and the version, and the root user the details (docs/security.md).
 */
export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        summary:
          'Does the database answer? Anonymous callers get that and the version; the root user also the dialect, broker, mail server and pool',
        security: [],
        response: { 200: HealthSchema },
      },
    },
    async (request) => {
      const root = await isRoot(ctx, request);
      if (!root) return { database: await ctx.dbh.ping(), version: ctx.version };
      const [database, broker] = await Promise.all([
        ctx.dbh.ping(),
        ctx.broker ? ctx.broker.reachable() : Promise.resolve(null),
      ]);
      return {
        database,
        version: ctx.version,
        dialect: ctx.dbh.dialect,
        broker,
        mail: ctx.mailer ? ctx.mailer.describe() : null,
        pool: ctx.dbh.poolStats(),
        resets: ctx.dbh.resets,
      };
    },
  );

  // vantage6 answers GET; POST is accepted too since the call may change server state. Harmless to anyone: the
  // pool is replaced only when it does not answer, at most once per database.fix_interval_seconds.
  const fix = async () => {
    const outcome = await ctx.dbh.repair();
    ctx.log.info(
      {
        event: 'health.fix',
        database: outcome.database,
        replaced: outcome.replaced,
        resets: outcome.resets,
      },
      outcome.replaced
        ? 'database connection pool replaced'
        : outcome.database
          ? 'database connection pool answers: left as it is'
          : 'database connection pool broken, but replaced too recently',
    );
    const { retryAfterSeconds, ...rest } = outcome;
    return retryAfterSeconds === undefined ? rest : { ...rest, retry_after: retryAfterSeconds };
  };
  const fixSchema = {
    tags: ['health'],
    summary:
      'Replace the database connection pool if (and only if) it does not answer; rate-limited; reports what it did',
    security: [],
    response: { 200: FixSchema },
  };
  app.get('/health/fix', { schema: fixSchema }, fix);
  app.post('/health/fix', { schema: fixSchema }, fix);

  app.get(
    '/version',
    {
      schema: {
        tags: ['health'],
        summary: 'Server version',
        security: [],
        response: { 200: Type.Object({ version: Type.String() }) },
      },
    },
    async () => ({ version: ctx.version }),
  );
};
