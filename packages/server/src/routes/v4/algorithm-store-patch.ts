/**
 * vantage6 4.x's `PATCH /algorithmstore/{id}` (docs/vantage6-4.md#algorithm-stores): a linked store's `name`, and
 * the collaboration it serves (`collaboration_id`, null for all). Its address cannot change, as in 4.x: a store at
 * another address is another store (unlink it and link the other). Under the rule of linking and unlinking stores.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../../errors.js';
import { errorResponses, IdParams } from '../../serializers/common.js';
import { findLinkedStore } from '../../repositories/store.js';
import { updateLinkedStore } from '../../repositories/linked-store-update.js';
import { collaborationOr404 } from '../collaboration/shared.js';
import { AlgorithmStore4 } from './schemas.js';
import { store4 } from './shapes.js';

export const algorithmStorePatchRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;
  app.patch(
    '/algorithmstore/:id',
    {
      schema: {
        tags: ['vantage6 4.x'],
        summary:
          'Rename a linked store, or change the collaboration it serves (null: all); its address stays',
        params: IdParams,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            collaboration_id: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
          },
          { additionalProperties: false },
        ),
        response: { 200: AlgorithmStore4, ...errorResponses },
      },
    },
    async (request) => {
      const { id } = request.params;
      if (!(await findLinkedStore(db(), id))) throw notFound('Algorithm store', id);
      const { name, collaboration_id } = request.body;
      if (typeof collaboration_id === 'number') await collaborationOr404(db(), collaboration_id);
      await updateLinkedStore(db(), id, {
        ...(name !== undefined ? { name } : {}),
        ...(collaboration_id !== undefined ? { collaboration_id } : {}),
      });
      const store = await findLinkedStore(db(), id);
      if (!store) throw notFound('Algorithm store', id);
      return store4(store) as Static<typeof AlgorithmStore4>;
    },
  );
};
