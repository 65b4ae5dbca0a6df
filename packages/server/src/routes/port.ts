import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Routes of `/port` (api.md). */
export const portRoutes: FastifyPluginAsyncTypebox = async (_app) => {};
