import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Routes of `/collaboration` (api.md). */
export const collaborationRoutes: FastifyPluginAsyncTypebox = async (_app) => {};
