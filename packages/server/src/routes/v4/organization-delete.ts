/**
 * `DELETE /organization/{id}` as vantage6 4.14 has it (docs/vantage6-4.md#deleting-an-organization): an
 * organization that runs, tasks, nodes, users or roles refer to is refused unless `delete_dependents=true`, which
 * removes them first, each as its own route removes it (a task as `DELETE /task/{id}`, a node as
 * `DELETE /node/{id}`, a user as `DELETE /user/{id}`, a role as `DELETE /role/{id}`); then the organization leaves
 * its collaborations and studies and its row goes. Nothing is left that refers to it.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Caller } from '../../auth/caller.js';
import { holdsEveryRule } from '../../auth/rules.js';
import { endSessions } from '../../auth/sessions.js';
import { ApiError, badRequest, forbidden, notFound } from '../../errors.js';
import { errorResponses, IdParams, MessageSchema } from '../../serializers/common.js';
import { findOrganization } from '../../repositories/organization.js';
import {
  deleteBareOrganization,
  deleteRuns,
  organizationDependents,
} from '../../repositories/organization-delete.js';
import { findTask } from '../../repositories/task/index.js';
import { deleteNode } from '../../repositories/node.js';
import { deleteUser } from '../../repositories/user.js';
import { deleteRole } from '../../repositories/role.js';
import { removeRunOutputs, removeTask } from '../task/remove.js';

export const organizationDeleteRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;
  app.delete(
    '/organization/:id',
    {
      schema: {
        tags: ['vantage6 4.x'],
        summary:
          'Delete an organization; with delete_dependents=true its runs, tasks, nodes, users and roles too (root user only)',
        params: IdParams,
        querystring: Type.Object(
          {
            // The 4.x client sends Python's `True`/`False` (requests writes a bool as str() does).
            delete_dependents: Type.Optional(
              Type.Union(
                ['true', 'True', '1', 'false', 'False', '0'].map((v) => Type.Literal(v)),
                { description: 'true: also delete its runs, tasks, nodes, users and roles' },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: MessageSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = request.caller as Caller;
      const { id } = request.params;
      // Federa has no rule to delete organizations (3.x has none): it is the root user's, who holds every rule.
      if (!holdsEveryRule(caller.rules))
        throw forbidden('Only the root user (every rule) may delete an organization.');
      if (!(await findOrganization(db(), id))) throw notFound('Organization', id);
      if (caller.organizationId === id) throw badRequest('You cannot delete your own organization.');
      const found = await organizationDependents(db(), id);
      const counts = Object.entries(found).map(([what, list]) => `${list.length} ${what}`);
      if (
        Object.values(found).some((list) => list.length > 0) &&
        !['true', 'True', '1'].includes(request.query.delete_dependents ?? '')
      )
        throw badRequest(
          `Organization ${id} has dependents: ${counts.join(', ')}. Send delete_dependents=true to delete them with it.`,
        );
      for (const taskId of found.tasks) {
        const task = await findTask(db(), taskId);
        if (task) await removeTask(ctx, task, request.log);
      }
      await removeRunOutputs(ctx, await deleteRuns(db(), found.runs), request.log);
      for (const nodeId of found.nodes) {
        await deleteNode(db(), nodeId);
        await ctx.vpn?.revokeNode(nodeId, 'deleted');
        await endSessions(ctx, 'node', nodeId, 'deleted');
      }
      for (const userId of found.users) {
        await deleteUser(db(), userId);
        await endSessions(ctx, 'user', userId, 'deleted');
      }
      for (const roleId of found.roles) await deleteRole(db(), roleId);
      // A run, task, node, user or role made for it meanwhile keeps it: refused, and the call can be sent again.
      if (!(await deleteBareOrganization(db(), id)))
        throw new ApiError(
          'conflict',
          `Organization ${id} gained dependents while it was being deleted; send the request again.`,
        );
      request.log.info(
        {
          event: 'organization.deleted',
          organization_id: id,
          by: caller.id,
          ...Object.fromEntries(Object.entries(found).map(([what, list]) => [what, list.length])),
        },
        'organization deleted',
      );
      return { msg: `Organization id=${id} was deleted, with ${counts.join(', ')}.` };
    },
  );
};
