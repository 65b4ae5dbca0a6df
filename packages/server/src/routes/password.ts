import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** `PATCH /password/change` (api.md §4.2). */
export const passwordRoutes: FastifyPluginAsyncTypebox = async (_app) => {};
