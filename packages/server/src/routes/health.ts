import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

const HealthSchema = Type.Object({
  database: Type.Boolean({ description: 'Does the database answer a trivial query?' }),
  dialect: Type.Optional(Type.String({ description: '`sqlite` or `postgres`' })),
  broker: Type.Optional(
    Type.Union([Type.Boolean(), Type.Null()], {
      description: 'Does the message broker (message_broker) answer? null: none configured (one instance)',
    }),
  ),
  mail: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description:
        'The SMTP server as `smtp://host:port (starttls|implicit-tls|none)`, never credentials; null: none',
    }),
  ),
});

/** `/health`, `/health/fix` and `/version` (api.md §4.3). No token needed. */
export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const health = async () => {
    const [database, broker] = await Promise.all([
      ctx.dbh.ping(),
      ctx.broker ? ctx.broker.reachable() : Promise.resolve(null),
    ]);
    return {
      database,
      dialect: ctx.dbh.dialect,
      broker,
      mail: ctx.mailer ? ctx.mailer.describe() : null,
    };
  };
  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        summary: 'Are the database and the message broker reachable? Which mail server is configured?',
        security: [],
        response: { 200: HealthSchema },
      },
    },
    health,
  );

  // vantage6 answers GET; POST is accepted too since the call changes server state.
  const fix = async () => {
    const ok = await ctx.dbh.reset();
    ctx.log.info(
      { event: 'health.fix', database: ok, resets: ctx.dbh.resets },
      'database connection pool reset',
    );
    return { database: ok, resets: ctx.dbh.resets };
  };
  const fixSchema = {
    tags: ['health'],
    summary: 'Reset the database connection pool and report whether the database answers',
    security: [],
    response: { 200: Type.Object({ database: Type.Boolean(), resets: Type.Integer() }) },
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
