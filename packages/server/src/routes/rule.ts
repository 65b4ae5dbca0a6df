import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Routes of `/rule` (api.md). */
export const ruleRoutes: FastifyPluginAsyncTypebox = async (_app) => {};
