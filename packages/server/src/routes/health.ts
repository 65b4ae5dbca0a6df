import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

const HealthSchema = Type.Object({
  database: Type.Boolean(),
  dialect: Type.Optional(Type.String()),
  broker: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  mail: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

/** `/health`, `/health/fix` and `/version` (api.md §4.3). No token needed. */
export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const health = async () => ({
    database: await ctx.dbh.ping(),
    dialect: ctx.dbh.dialect,
    broker: null,
    mail: ctx.mailer ? ctx.mailer.describe() : null,
  });
  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        summary: 'Is the database reachable?',
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
