import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../serializers/common.js';
import { configsOfNodes, nodesOfCollaboration } from '../repositories/node.js';
import type { AppContext } from '../context.js';
import type { Caller } from '../auth/caller.js';
import { assertMayViewCollaboration, callerOf, collaborationOr404 } from './collaboration/shared.js';

/**
 * `GET /column` (docs/store.md#researchers): the column names of a tabular database at the nodes of a
 * collaboration, for the task form's column pickers. Names only: each node reads the header of its file and sends
 * the names in its `node_info_update` (key `columns.<label>`), unless its policy `share_column_names: false`
 * refuses; no value of a database ever reaches the server this way.
 */
export const COLUMNS_KEY_PREFIX = 'columns.';

const ColumnSchema = Type.Object({
  name: Type.String(),
  organization_ids: Type.Array(Type.Integer(), { description: 'the organizations whose database has it' }),
});

/**
 * The column names of database `database` the nodes of collaboration `id` shared, for a caller who may view the
 * collaboration (the rule of `GET /column`; vantage6 4.x's `POST /column` answers the same names).
 */
export async function columnNames(ctx: AppContext, caller: Caller, id: number, database: string) {
  const db = ctx.dbh.db;
  await collaborationOr404(db, id);
  await assertMayViewCollaboration(db, caller, id);
  const nodes = await nodesOfCollaboration(db, id);
  const orgOf = new Map(nodes.map((n) => [n.id, n.organization_id]));
  const key = `${COLUMNS_KEY_PREFIX}${database}`;
  const rows = nodes.length ? (await configsOfNodes(db, [...orgOf.keys()])).filter((r) => r.key === key) : [];
  const columns = new Map<string, Set<number>>();
  const shared = new Set<number>();
  for (const r of rows) {
    const org = orgOf.get(r.node_id);
    if (org === undefined) continue;
    shared.add(org);
    (columns.get(r.value) ?? columns.set(r.value, new Set()).get(r.value)!).add(org);
  }
  return {
    data: [...columns].map(([name, orgs]) => ({
      name,
      organization_ids: [...orgs].sort((a, b) => a - b),
    })),
    database,
    not_shared: nodes
      .map((n) => n.organization_id)
      .filter((o) => !shared.has(o))
      .sort((a, b) => a - b),
  };
}

export const columnRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  app.get(
    '/column',
    {
      schema: {
        tags: ['collaboration'],
        summary: 'Column names of a database at the nodes of a collaboration (names only, never values)',
        querystring: Type.Object({
          collaboration_id: Type.Integer({ minimum: 1 }),
          database: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 56,
              description: 'the database label; default "default"',
            }),
          ),
        }),
        response: {
          200: Type.Object({
            data: Type.Array(ColumnSchema),
            database: Type.String(),
            not_shared: Type.Array(Type.Integer(), {
              description:
                'organizations whose node has not shared the names: not yet connected, refused by its policy, or a database that is not a file',
            }),
          }),
          ...errorResponses,
        },
      },
    },
    async (request) =>
      columnNames(
        ctx,
        callerOf(request),
        request.query.collaboration_id,
        request.query.database ?? 'default',
      ),
  );
};
