import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Routes of `/user` (api.md). */
export const userRoutes: FastifyPluginAsyncTypebox = async (_app) => {};
