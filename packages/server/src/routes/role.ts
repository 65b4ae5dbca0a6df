import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Routes of `/role` (api.md). */
export const roleRoutes: FastifyPluginAsyncTypebox = async (_app) => {};
