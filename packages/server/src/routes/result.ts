import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Routes of `/result` (api.md). */
export const resultRoutes: FastifyPluginAsyncTypebox = async (_app) => {};
