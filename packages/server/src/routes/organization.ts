import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Routes of `/organization` (api.md). */
export const organizationRoutes: FastifyPluginAsyncTypebox = async (_app) => {};
