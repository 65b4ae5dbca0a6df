import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { StoreContext } from '../context.js';
import { algorithmRoutes } from './algorithm.js';
import { algorithmEditRoutes } from './algorithm-edit.js';
import { reviewRoutes } from './review.js';
import { adminRoutes } from './admin.js';

/** The store's routes, registered under its own prefix (`/store/api` in a server, `/api` on its own). */
export function storeRoutes(sctx: StoreContext, prefix: string): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(algorithmRoutes(sctx, prefix));
    await app.register(algorithmEditRoutes(sctx, prefix));
    await app.register(reviewRoutes(sctx));
    await app.register(adminRoutes(sctx));
  };
}
