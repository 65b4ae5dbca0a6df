import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Caller } from '../auth/caller.js';
import { ApiError, ERROR_CODES, badRequest, forbidden, notFound } from '../errors.js';
import { truthy } from '../http/filters.js';
import { ErrorSchema, Nullable, errorResponses } from '../serializers/common.js';
import { algorithmAddresses } from '../repositories/port.js';
import { childTaskIds, findTask } from '../repositories/task/index.js';
import { IssueRefused } from '../vpn/issue-limit.js';

/** The answer when the configuration has no `vpn` section: nodes then run without VPN (docs/vpn.md). */
const NO_VPN = 'This server has no VPN configured';

const Flag = (description: string) =>
  Type.Optional(Type.String({ description: `${description}; false, False, 0, no and empty are false` }));

const Address = Type.Object({
  port: Type.Integer(),
  label: Nullable(Type.String()),
  ip: Nullable(Type.String()),
  organization_id: Type.Integer(),
  task_id: Type.Integer(),
  parent_id: Nullable(Type.Integer()),
});

const OvpnConfig = Type.Object({
  ovpn_config: Type.String({ description: 'OpenVPN client configuration with its own certificate and key' }),
});

/** `/vpn…`: a node's VPN configuration, its renewal, and the addresses of related algorithm runs (docs/vpn.md). */
export const vpnRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;
  const responses = { 200: OvpnConfig, ...errorResponses, 429: ErrorSchema, 501: ErrorSchema };

  /**
   * Issues a configuration for the calling node, whose certificate carries its id; 429 with `Retry-After` when
   * the node is over its limits (vpn/issue-limit.ts).
   */
  const issue = async (request: { caller?: unknown }, reply: FastifyReply) => {
    if (!ctx.vpn) throw new ApiError('not_configured', NO_VPN);
    const caller = request.caller as Caller;
    try {
      return { ovpn_config: (await ctx.vpn.issue(caller.id)).ovpn_config };
    } catch (error) {
      if (!(error instanceof IssueRefused)) throw error;
      return reply
        .status(ERROR_CODES.rate_limited.status)
        .header('Retry-After', String(error.retryAfterSeconds))
        .send({ msg: error.message, code: 'rate_limited' });
    }
  };

  app.get(
    '/vpn',
    {
      schema: {
        tags: ['vpn'],
        summary:
          'VPN client configuration for the calling node, with a certificate of its own (501 without VPN)',
        response: responses,
      },
    },
    async (request, reply) => issue(request, reply),
  );

  app.post(
    '/vpn/update',
    {
      schema: {
        tags: ['vpn'],
        summary: "Renew the calling node's VPN certificate (501 without VPN)",
        // Checked in the handler: without VPN the answer is 501 whatever is sent (as vantage6 without one).
        body: Type.Unknown({ description: '`{"vpn_config": "<the node\'s current OpenVPN config>"}`' }),
        response: responses,
      },
    },
    async (request, reply) => {
      if (!ctx.vpn) throw new ApiError('not_configured', NO_VPN);
      const body = request.body as { vpn_config?: unknown } | null | undefined;
      if (typeof body?.vpn_config !== 'string' || body.vpn_config.length > 65_536)
        throw badRequest("Field 'vpn_config' is required: the node's current VPN configuration (text).");
      return issue(request, reply);
    },
  );

  app.get(
    '/vpn/algorithm/addresses',
    {
      schema: {
        tags: ['vpn'],
        summary:
          "VPN addresses of the algorithm runs of the container's task (and/or its parent and children)",
        querystring: Type.Object({
          include_children: Flag('also the runs of sub-tasks'),
          include_parent: Flag('also the runs of the parent task'),
          only_children: Flag('only the runs of sub-tasks'),
          only_parent: Flag('only the runs of the parent task'),
          label: Type.Optional(Type.String({ description: 'only ports with this label' })),
        }),
        response: { 200: Type.Object({ addresses: Type.Array(Address) }), ...errorResponses },
      },
    },
    async (request) => {
      const token = (request.caller as Caller).container;
      if (!token) throw forbidden('Only algorithm containers can query algorithm addresses');
      const q = request.query;
      const includeChildren = truthy(q.include_children);
      const includeParent = truthy(q.include_parent);
      const onlyChildren = truthy(q.only_children);
      const onlyParent = truthy(q.only_parent);
      if (onlyChildren && onlyParent) throw badRequest('only_children and only_parent cannot both be set.');
      if (onlyChildren && includeParent)
        throw badRequest('only_children and include_parent cannot both be set.');
      if (onlyParent && includeChildren)
        throw badRequest('only_parent and include_children cannot both be set.');

      const task = await findTask(db(), token.task_id);
      if (!task) throw notFound('Task', token.task_id);
      const children = await childTaskIds(db(), task.id);
      const parent = task.parent_id === null ? [] : [task.parent_id];
      let taskIds = onlyChildren ? children : onlyParent ? parent : [task.id];
      if (includeChildren) taskIds = [...taskIds, ...children];
      if (includeParent) taskIds = [...taskIds, ...parent];
      if (taskIds.length === 0) return { addresses: [] };

      const label = q.label !== undefined && q.label !== '' ? q.label : undefined;
      return { addresses: await algorithmAddresses(db(), taskIds, token.collaboration_id, label) };
    },
  );
};
