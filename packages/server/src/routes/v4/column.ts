/**
 * vantage6 4.x's `POST /column` (docs/vantage6-4.md#column-names): the column names of a database at the nodes of
 * a collaboration, answered from what the nodes shared, as `GET /column` answers them and under its rule. A 4.x
 * server that has no names yet starts a task to read them; Federa's nodes share them when they connect (unless
 * their policy refuses), so no task is started and the body's `organizations`, `sheet_name` and `query` (what such
 * a task would need) are checked but not used.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../../errors.js';
import { errorResponses } from '../../serializers/common.js';
import { callerOf } from '../collaboration/shared.js';
import { columnNames } from '../column.js';

export const columnPostRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  app.post(
    '/column',
    {
      schema: {
        tags: ['vantage6 4.x'],
        summary: 'Column names of a database at the nodes of a collaboration (names only, never values)',
        body: Type.Object(
          {
            db_label: Type.String({ minLength: 1, maxLength: 56 }),
            collaboration_id: Type.Integer({ minimum: 1 }),
            organizations: Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 1000 }),
            sheet_name: Type.Optional(Type.String({ maxLength: 200 })),
            query: Type.Optional(Type.String({ maxLength: 10_000 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ columns: Type.Array(Type.String()) }), ...errorResponses },
      },
    },
    async (request) => {
      const { collaboration_id: id, db_label: label } = request.body;
      const found = await columnNames(ctx, callerOf(request), id, label);
      if (found.data.length === 0)
        throw new ApiError(
          'not_found',
          `No node of collaboration ${id} has shared the column names of database '${label}': a node shares them when it connects, unless its policy refuses or the database is not a file.`,
        );
      return { columns: found.data.map((c) => c.name) };
    },
  );
};
