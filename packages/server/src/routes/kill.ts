import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Routes of `/kill` (api.md). */
export const killRoutes: FastifyPluginAsyncTypebox = async (_app) => {};
