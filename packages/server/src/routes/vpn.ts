import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Routes of `/vpn` (api.md). */
export const vpnRoutes: FastifyPluginAsyncTypebox = async (_app) => {};
