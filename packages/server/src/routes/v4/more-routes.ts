/**
 * Routes only the vantage6 4.x surface has, beside studies and blobstream (docs/vantage6-4.md): changing a linked
 * store, column names by `POST`, deleting an organization, and the answer that two-factor authentication is not
 * offered.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { algorithmStorePatchRoute } from './algorithm-store-patch.js';
import { columnPostRoute } from './column.js';
import { organizationDeleteRoute } from './organization-delete.js';
import { recover2faRoutes } from './recover-2fa.js';

export const moreV4Routes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(algorithmStorePatchRoute);
  await app.register(columnPostRoute);
  await app.register(organizationDeleteRoute);
  await app.register(recover2faRoutes);
};
