import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Caller } from '../auth/caller.js';
import { callerCollaborations } from '../auth/scope.js';
import { forbidden, notFound } from '../errors.js';
import { PaginationQuery, paginate } from '../http/pagination.js';
import { IdParams, MessageSchema, Paginated, errorResponses } from '../serializers/common.js';
import { PortSchema, loadPorts } from '../serializers/port.js';
import { findResult, type ResultScopeRow } from '../repositories/result.js';
import { deletePortsOfResult, findPort, insertPort, portIds } from '../repositories/port.js';
import type { AppContext } from '../context.js';

/** The collaborations whose ports a caller sees: `null` for all (`port.v_glo`), else the caller's own. */
async function portCollaborations(ctx: AppContext, caller: Caller): Promise<number[] | null> {
  if (caller.rules.has('port.v_glo')) return null;
  return callerCollaborations(ctx.dbh.db, caller);
}

/** The result a node registers ports for; it must be the node serving it (same organization and collaboration). */
async function servedResult(ctx: AppContext, caller: Caller, resultId: number): Promise<ResultScopeRow> {
  const node = caller.node;
  if (!node) throw forbidden('Only nodes can manage algorithm ports');
  const result = await findResult(ctx.dbh.db, resultId);
  if (!result) throw notFound('Result', resultId);
  if (result.organization_id !== node.organization_id || result.collaboration_id !== node.collaboration_id) {
    throw forbidden(
      `Result ${resultId} is not served by this node: only the node of organization ${result.organization_id} in its collaboration may manage its ports.`,
    );
  }
  return result;
}

/** `/port…` (docs/api.md#ports-and-vpn): VPN ports of algorithm runs. */
export const portRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;

  app.get(
    '/port',
    {
      schema: {
        tags: ['port'],
        summary: 'List algorithm ports (newest first)',
        querystring: Type.Object({
          ...PaginationQuery,
          result_id: Type.Optional(Type.Integer()),
          task_id: Type.Optional(Type.Integer()),
          run_id: Type.Optional(Type.Integer()),
        }),
        response: { 200: Paginated(PortSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const scope = await portCollaborations(ctx, request.caller as Caller);
      const ids = portIds(db(), scope, q);
      return paginate(db(), request, reply, ids, (page) => loadPorts(ctx, page));
    },
  );

  app.post(
    '/port',
    {
      schema: {
        tags: ['port'],
        summary: 'Register a VPN port of an algorithm run (the node serving the result)',
        body: Type.Object({
          result_id: Type.Integer(),
          port: Type.Integer({ minimum: 0, maximum: 65535 }),
          label: Type.Optional(
            Type.Unsafe<string | null>({
              type: ['string', 'null'],
              description: 'label from the algorithm image',
            }),
          ),
        }),
        response: { 201: PortSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const result = await servedResult(ctx, request.caller as Caller, request.body.result_id);
      const id = await insertPort(db(), {
        result_id: result.id,
        port: request.body.port,
        label: request.body.label ?? null,
      });
      const [port] = await loadPorts(ctx, [id]);
      if (!port) throw notFound('Port', id);
      return reply.status(201).send(port);
    },
  );

  app.delete(
    '/port',
    {
      schema: {
        tags: ['port'],
        summary: 'Delete all ports of a result (the node serving the result)',
        querystring: Type.Object({
          result_id: Type.Integer({ description: 'the result whose ports are deleted' }),
        }),
        response: { 200: MessageSchema, ...errorResponses },
      },
    },
    async (request) => {
      const result = await servedResult(ctx, request.caller as Caller, request.query.result_id);
      const deleted = await deletePortsOfResult(db(), result.id);
      return { msg: `Deleted ${deleted} port(s) of result ${result.id}.` };
    },
  );

  app.get(
    '/port/:id',
    {
      schema: {
        tags: ['port'],
        summary: 'One algorithm port',
        params: IdParams,
        response: { 200: PortSchema, ...errorResponses },
      },
    },
    async (request) => {
      const row = await findPort(db(), request.params.id);
      if (!row) throw notFound('Port', request.params.id);
      const scope = await portCollaborations(ctx, request.caller as Caller);
      if (scope !== null && (row.collaboration_id === null || !scope.includes(row.collaboration_id))) {
        throw forbidden(
          `You cannot view port ${row.id}: it belongs to a collaboration your organization is not part of.`,
        );
      }
      const [port] = await loadPorts(ctx, [row.id]);
      return port;
    },
  );
};
