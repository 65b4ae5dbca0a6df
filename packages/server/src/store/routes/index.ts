import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { StoreContext } from '../context.js';
import { algorithmRoutes } from './algorithm.js';
import { algorithmEditRoutes } from './algorithm-edit.js';
import { reviewRoutes } from './review.js';
import { adminRoutes } from './admin.js';
import { ruleRoutes } from './rule.js';

/** The store's routes, registered under its own prefix (`/store/api` in a server, `/api` on its own). */
export function storeRoutes(sctx: StoreContext, prefix: string): FastifyPluginAsyncTypebox {
  return async (app) => {
    // A write's own change is dropped from what the store keeps before its answer goes out: the writer's next
    // read sees it, whatever the notifications' delay (catalogue-cache.ts).
    app.addHook('onClose', async () => sctx.listener?.close());
    app.addHook('onSend', async (request) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') sctx.cache?.changed();
    });
    await app.register(algorithmRoutes(sctx, prefix));
    await app.register(algorithmEditRoutes(sctx, prefix));
    await app.register(reviewRoutes(sctx));
    await app.register(adminRoutes(sctx));
    await app.register(ruleRoutes(sctx));
  };
}
