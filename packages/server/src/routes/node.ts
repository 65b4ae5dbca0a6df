import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Routes of `/node` (api.md). */
export const nodeRoutes: FastifyPluginAsyncTypebox = async (_app) => {};
