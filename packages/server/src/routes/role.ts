import { Type } from '@sinclair/typebox';
import { NewRoleBodySchema, RolePatchBodySchema } from '@federa/common';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError, badRequest, forbidden, notFound } from '../errors.js';
import { can, type Caller } from '../auth/caller.js';
import { RESERVED_ROLE_NAMES } from '../auth/rules.js';
import type { RoleRow } from '../db/schema.js';
import { paginate, PaginationQuery } from '../http/pagination.js';
import { truthy } from '../http/filters.js';
import { errorResponses, IdParams, MessageSchema, Paginated } from '../serializers/common.js';
import { loadRoles, RoleSchema } from '../serializers/role.js';
import { loadRules, RuleSchema } from '../serializers/rule.js';
import { organizationExists } from '../repositories/user.js';
import { requireNoSelfLoss, requireOutranksHolders } from '../auth/scope.js';
import {
  findRole,
  requireGrantableRules,
  isDefaultRole,
  requireHeld,
  roleIdsOfUser,
  ruleIdsOfRole,
  ruleKeysById,
  addRuleToRole,
  createRole,
  deleteRole,
  removeRuleFromRole,
  roleIds,
  updateRole,
} from '../repositories/role.js';
import { ruleIdsOfRoleListing } from '../repositories/rule.js';

const RoleListQuery = Type.Object({
  ...PaginationQuery,
  organization_id: Type.Optional(
    Type.Array(Type.Integer(), { description: 'roles of any of these organizations; repeatable' }),
  ),
  include_root: Type.Optional(
    Type.String({ description: 'with organization_id: also the roles without organization (default roles)' }),
  ),
  name: Type.Optional(Type.Array(Type.String(), { description: 'LIKE pattern; repeatable (any matches)' })),
  description: Type.Optional(
    Type.Array(Type.String(), { description: 'LIKE pattern; repeatable (any matches)' }),
  ),
  rule_id: Type.Optional(Type.Integer({ description: 'roles containing this rule' })),
  user_id: Type.Optional(Type.Integer({ description: 'roles held by this user' })),
});

const RoleRuleParams = Type.Object({
  id: Type.Integer({ minimum: 1, description: 'role id' }),
  rule_id: Type.Integer({ minimum: 1, description: 'rule id' }),
});

const callerOf = (request: FastifyRequest): Caller => {
  if (!request.caller) throw new ApiError('wrong_caller');
  return request.caller;
};

const reservedNames = (): string => [...RESERVED_ROLE_NAMES].map((n) => `'${n}'`).join(', ');

/** `/role`, `/role/{id}` and `/role/{id}/rule` (docs/api.md#roles-and-rules, docs/access-control.md#roles, docs/access-control.md#guards). */
export const roleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;

  const loadRole = async (id: number): Promise<RoleRow> => {
    const role = await findRole(db(), id);
    if (!role) throw notFound('role', id);
    return role;
  };

  /** Viewing a role: any with role VIEW GLOBAL; your own organization's, the default ones and those you hold with VIEW ORGANIZATION; otherwise those you hold. */
  const mayView = async (caller: Caller, role: RoleRow): Promise<boolean> => {
    if (can(caller, 'role.v_glo')) return true;
    if (
      can(caller, 'role.v_org') &&
      (role.organization_id === null || role.organization_id === caller.organizationId)
    )
      return true;
    return (await roleIdsOfUser(db(), caller.id)).includes(role.id);
  };

  /** Editing (op `e`) or deleting (op `d`) a role: any with the global rule, your organization's with the organization rule. */
  const requireManage = (caller: Caller, role: RoleRow, op: 'e' | 'd'): void => {
    if (can(caller, `role.${op}_glo`)) return;
    if (
      can(caller, `role.${op}_org`) &&
      role.organization_id !== null &&
      role.organization_id === caller.organizationId
    )
      return;
    const verb = op === 'e' ? 'edit' : 'delete';
    const scope = role.organization_id === null ? 'default roles' : 'roles of another organization';
    throw forbidden(
      `You lack the permission to ${verb} ${scope} (role ${op === 'e' ? 'EDIT' : 'DELETE'} GLOBAL).`,
    );
  };

  const rulesOf = async (roleId: number) => loadRules(ctx, await ruleIdsOfRole(db(), roleId));

  app.get(
    '/role',
    {
      schema: {
        tags: ['role'],
        summary:
          "List roles (all with role VIEW GLOBAL; your organization's and the default roles with VIEW ORGANIZATION; else the roles you hold)",
        querystring: RoleListQuery,
        response: { 200: Paginated(RoleSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const q = request.query;
      const scope = can(caller, 'role.v_glo')
        ? null
        : {
            held: await roleIdsOfUser(db(), caller.id),
            ...(can(caller, 'role.v_org') ? { organizationId: caller.organizationId } : {}),
          };
      const ids = roleIds(db(), scope, {
        organization_id: q.organization_id,
        include_root: truthy(q.include_root),
        name: q.name,
        description: q.description,
        rule_id: q.rule_id,
        user_id: q.user_id,
      });
      return paginate(db(), request, reply, ids, (page) => loadRoles(ctx, page));
    },
  );

  app.post(
    '/role',
    {
      schema: {
        tags: ['role'],
        summary: 'Create a role (for another organization: role CREATE GLOBAL); only with rules you hold',
        body: NewRoleBodySchema,
        response: { 201: RoleSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const b = request.body;
      if (RESERVED_ROLE_NAMES.has(b.name))
        throw new ApiError(
          'not_allowed_input',
          `The role names ${reservedNames()} are reserved for the default roles; choose another name.`,
        );
      const ruleIds = [...new Set(b.rules ?? [])];
      await requireGrantableRules(db(), caller, ruleIds, 'put it in a role');
      const organizationId = b.organization_id ?? caller.organizationId;
      if (organizationId !== caller.organizationId) {
        if (!(await organizationExists(db(), organizationId))) throw notFound('organization', organizationId);
        if (!can(caller, 'role.c_glo'))
          throw forbidden(
            'You lack the permission to create roles for another organization (role CREATE GLOBAL).',
          );
      }
      if (!can(caller, 'role.c_glo') && !can(caller, 'role.c_org'))
        throw forbidden('You lack the permission to create roles (role CREATE ORGANIZATION or GLOBAL).');
      const id = await createRole(
        db(),
        { name: b.name, description: b.description, organization_id: organizationId },
        ruleIds,
      );
      request.log.info({ event: 'role.created', role_id: id, by: caller.id }, 'role created');
      const [out] = await loadRoles(ctx, [id]);
      if (!out) throw notFound('role', id);
      return reply.status(201).send(out);
    },
  );

  app.get(
    '/role/:id',
    {
      schema: {
        tags: ['role'],
        summary: 'A role',
        params: IdParams,
        response: { 200: RoleSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const role = await loadRole(request.params.id);
      if (!(await mayView(caller, role)))
        throw forbidden('You lack the permission to view this role (role VIEW ORGANIZATION or GLOBAL).');
      const [out] = await loadRoles(ctx, [role.id]);
      if (!out) throw notFound('role', role.id);
      return out;
    },
  );

  app.patch(
    '/role/:id',
    {
      schema: {
        tags: ['role'],
        summary: 'Update a role; `rules` replaces its rules (only rules you hold)',
        params: IdParams,
        body: RolePatchBodySchema,
        response: { 200: RoleSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const b = request.body ?? {};
      const role = await loadRole(request.params.id);
      requireManage(caller, role, 'e');
      const name = b.name ?? role.name;
      if (name !== role.name && (RESERVED_ROLE_NAMES.has(name) || RESERVED_ROLE_NAMES.has(role.name))) {
        throw new ApiError(
          'not_allowed_input',
          `Default roles cannot be renamed, and the names ${reservedNames()} are reserved.`,
        );
      }
      const ruleIds = b.rules ? [...new Set(b.rules)] : null;
      if (ruleIds) {
        await requireGrantableRules(db(), caller, ruleIds, 'put it in a role');
        const current = await ruleIdsOfRole(db(), role.id);
        const removed = current.filter((id) => !ruleIds.includes(id));
        requireHeld(caller, (await ruleKeysById(db(), removed)).values(), 'take it out of a role');
        if (removed.length > 0 || ruleIds.some((id) => !current.includes(id))) {
          await requireNoSelfLoss(db(), caller, role, (await ruleKeysById(db(), ruleIds)).values());
          await requireOutranksHolders(db(), caller, role, 'change the rules of');
        }
      }
      await updateRole(db(), role.id, { name, description: b.description ?? role.description }, ruleIds);
      ctx.events.identityChanged?.({ what: 'rooms', kind: 'user' });
      request.log.info({ event: 'role.updated', role_id: role.id, by: caller.id }, 'role updated');
      const [out] = await loadRoles(ctx, [role.id]);
      if (!out) throw notFound('role', role.id);
      return out;
    },
  );

  app.delete(
    '/role/:id',
    {
      schema: {
        tags: ['role'],
        summary: 'Delete a role',
        params: IdParams,
        response: { 200: MessageSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const role = await loadRole(request.params.id);
      requireManage(caller, role, 'd');
      if (isDefaultRole(role))
        throw badRequest(`Role '${role.name}' is a default role and cannot be deleted.`);
      await requireNoSelfLoss(db(), caller, role, []);
      await requireOutranksHolders(db(), caller, role, 'delete');
      await deleteRole(db(), role.id);
      ctx.events.identityChanged?.({ what: 'rooms', kind: 'user' });
      request.log.info({ event: 'role.deleted', role_id: role.id, by: caller.id }, 'role deleted');
      return { msg: `Role id=${role.id} has been deleted.` };
    },
  );

  app.get(
    '/role/:id/rule',
    {
      schema: {
        tags: ['role'],
        summary: 'The rules of a role',
        params: IdParams,
        querystring: Type.Object(PaginationQuery),
        response: { 200: Paginated(RuleSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const role = await loadRole(request.params.id);
      if (!(await mayView(caller, role)))
        throw forbidden(
          'You lack the permission to view the rules of this role (role VIEW ORGANIZATION or GLOBAL).',
        );
      const ids = ruleIdsOfRoleListing(db(), role.id);
      return paginate(db(), request, reply, ids, (page) => loadRules(ctx, page));
    },
  );

  app.post(
    '/role/:id/rule/:rule_id',
    {
      schema: {
        tags: ['role'],
        summary: "Add a rule (one you hold) to a role; answers the role's rules",
        params: RoleRuleParams,
        response: { 201: Type.Array(RuleSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const role = await loadRole(request.params.id);
      const ruleId = request.params.rule_id;
      const keys = await ruleKeysById(db(), [ruleId]);
      if (!keys.has(ruleId)) throw notFound('rule', ruleId);
      requireManage(caller, role, 'e');
      requireHeld(caller, keys.values(), 'put it in a role');
      if (!(await ruleIdsOfRole(db(), role.id)).includes(ruleId)) {
        await requireOutranksHolders(db(), caller, role, 'add a rule to');
        await addRuleToRole(db(), role.id, ruleId);
      }
      ctx.events.identityChanged?.({ what: 'rooms', kind: 'user' });
      return reply.status(201).send(await rulesOf(role.id));
    },
  );

  app.delete(
    '/role/:id/rule/:rule_id',
    {
      schema: {
        tags: ['role'],
        summary: "Remove a rule (one you hold) from a role; answers the role's remaining rules",
        params: RoleRuleParams,
        response: { 200: Type.Array(RuleSchema), ...errorResponses },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const role = await loadRole(request.params.id);
      const ruleId = request.params.rule_id;
      const keys = await ruleKeysById(db(), [ruleId]);
      if (!keys.has(ruleId)) throw notFound('rule', ruleId);
      requireManage(caller, role, 'd');
      requireHeld(caller, keys.values(), 'take it out of a role');
      const current = await ruleIdsOfRole(db(), role.id);
      if (!current.includes(ruleId))
        throw new ApiError('not_found', `Rule id=${ruleId} is not part of role id=${role.id}.`);
      const remaining = current.filter((id) => id !== ruleId);
      await requireNoSelfLoss(db(), caller, role, (await ruleKeysById(db(), remaining)).values());
      await requireOutranksHolders(db(), caller, role, 'remove a rule from');
      await removeRuleFromRole(db(), role.id, ruleId);
      ctx.events.identityChanged?.({ what: 'rooms', kind: 'user' });
      return rulesOf(role.id);
    },
  );
};
