import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Routes of `/task` (api.md). */
export const taskRoutes: FastifyPluginAsyncTypebox = async (_app) => {};
