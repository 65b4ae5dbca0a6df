import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Routes of `/recover` (api.md). */
export const recoverRoutes: FastifyPluginAsyncTypebox = async (_app) => {};
