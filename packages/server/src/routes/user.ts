import { endSessions } from '../auth/sessions.js';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError, badRequest, forbidden, notFound } from '../errors.js';
import { can, type Caller } from '../auth/caller.js';
import { requireCurrentPassword } from '../auth/current-password.js';
import type { UserRow } from '../db/schema.js';
import { hashPassword, passwordPolicyProblem } from '../auth/passwords.js';
import { requireOutranks } from '../auth/scope.js';
import { timeBound } from '../http/datetime.js';
import { paginate, PaginationQuery } from '../http/pagination.js';
import { errorResponses, IdParams, MessageSchema, Paginated } from '../serializers/common.js';
import { loadUsers, UserSchema } from '../serializers/user.js';
import {
  deleteUser,
  emailTaken,
  findUser,
  insertUser,
  organizationExists,
  usernameTaken,
  updateUser,
  userIds,
} from '../repositories/user.js';
import {
  checkRoleAssignment,
  checkRuleAssignment,
  findRoles,
  roleIdsOfUser,
  ruleIdsOfUser,
  ruleKeysById,
} from '../repositories/role.js';
import { isUniqueViolation } from '../db/violations.js';
import { NewUserBodySchema, UserPatchBodySchema } from '@federa/common';

const UserListQuery = Type.Object({
  ...PaginationQuery,
  username: Type.Optional(Type.String({ description: 'LIKE pattern (use % as wildcard)' })),
  firstname: Type.Optional(Type.String({ description: 'LIKE pattern' })),
  lastname: Type.Optional(Type.String({ description: 'LIKE pattern' })),
  email: Type.Optional(Type.String({ description: 'LIKE pattern' })),
  organization_id: Type.Optional(Type.Integer({ description: 'users of this organization' })),
  last_seen_from: Type.Optional(Type.String({ description: 'ISO-8601; users seen at or after this time' })),
  last_seen_till: Type.Optional(Type.String({ description: 'ISO-8601; users seen at or before this time' })),
  role_id: Type.Optional(Type.Integer({ description: 'users holding this role' })),
  rule_id: Type.Optional(Type.Integer({ description: 'users holding this rule directly (not via a role)' })),
});

const sameIds = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((id) => b.includes(id));

const callerOf = (request: FastifyRequest): Caller => {
  if (!request.caller) throw new ApiError('wrong_caller');
  return request.caller;
};

const conflictOnRace = (error: unknown): never => {
  if (isUniqueViolation(error))
    throw new ApiError('conflict', 'The username or e-mail address is already in use.');
  throw error;
};

/** `/user` and `/user/{id}` (docs/api.md#users, docs/access-control.md#guards). */
export const userRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;
  const existingUser = async (id: number): Promise<UserRow> => {
    const user = await findUser(db(), id);
    if (!user) throw notFound('user', id);
    return user;
  };
  /** The user as the API shows it. */
  const shownUser = async (id: number) => {
    const [out] = await loadUsers(ctx, [id]);
    if (!out) throw notFound('user', id);
    return out;
  };

  app.get(
    '/user',
    {
      schema: {
        tags: ['user'],
        summary: 'List users (all with user VIEW GLOBAL, your organization with user VIEW ORGANIZATION)',
        querystring: UserListQuery,
        response: { 200: Paginated(UserSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const q = request.query;
      if (!can(caller, 'user.v_glo') && !can(caller, 'user.v_org'))
        throw forbidden('You lack the permission to list users (user VIEW ORGANIZATION or GLOBAL).');
      const ids = userIds(db(), can(caller, 'user.v_glo') ? null : caller.organizationId, {
        username: q.username,
        firstname: q.firstname,
        lastname: q.lastname,
        email: q.email,
        organization_id: q.organization_id,
        last_seen_from:
          q.last_seen_from === undefined ? undefined : timeBound('last_seen_from', q.last_seen_from),
        last_seen_till:
          q.last_seen_till === undefined ? undefined : timeBound('last_seen_till', q.last_seen_till),
        role_id: q.role_id,
        rule_id: q.rule_id,
      });
      return paginate(db(), request, reply, ids, (page) => loadUsers(ctx, page));
    },
  );

  app.post(
    '/user',
    {
      schema: {
        tags: ['user'],
        summary: 'Create a user (for another organization: user CREATE GLOBAL)',
        body: NewUserBodySchema,
        response: { 201: UserSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const b = request.body;
      if (await usernameTaken(db(), b.username))
        throw new ApiError('conflict', `A user with username '${b.username}' already exists.`);
      if (await emailTaken(db(), b.email))
        throw new ApiError('conflict', `A user with e-mail address '${b.email}' already exists.`);

      const organizationId = b.organization_id ?? caller.organizationId;
      if (organizationId !== caller.organizationId) {
        if (!can(caller, 'user.c_glo'))
          throw forbidden(
            'You lack the permission to create users for another organization (user CREATE GLOBAL).',
          );
        if (!(await organizationExists(db(), organizationId))) throw notFound('organization', organizationId);
      }
      if (!can(caller, 'user.c_glo') && !can(caller, 'user.c_org'))
        throw forbidden('You lack the permission to create users (user CREATE ORGANIZATION or GLOBAL).');

      // Unknown role and rule ids are skipped (as vantage6 3.x does on creation).
      const roleIds = (await findRoles(db(), b.roles ?? [])).map((r) => r.id);
      await checkRoleAssignment(db(), caller, { current: [], wanted: roleIds, self: false, organizationId });
      const ruleIds = [...(await ruleKeysById(db(), b.rules ?? [])).keys()];
      await checkRuleAssignment(db(), caller, { current: [], wanted: ruleIds, self: false });

      const problem = passwordPolicyProblem(b.password);
      if (problem) throw new ApiError('password_policy', problem);

      const id = await insertUser(db(), {
        username: b.username,
        firstname: b.firstname,
        lastname: b.lastname,
        email: b.email,
        passwordHash: await hashPassword(b.password, ctx.config.bcrypt_rounds),
        organizationId,
        roleIds,
        ruleIds,
      }).catch(conflictOnRace);
      request.log.info({ event: 'user.created', user_id: id, by: caller.id }, 'user created');
      return reply.status(201).send(await shownUser(id));
    },
  );

  app.get(
    '/user/:id',
    {
      schema: {
        tags: ['user'],
        summary: 'A user (yourself always; others with user VIEW ORGANIZATION or GLOBAL)',
        params: IdParams,
        response: { 200: UserSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { id } = request.params;
      // The user as shown carries their organization: one read gives the answer and what the check needs.
      const user = await shownUser(id);
      const allowed =
        (caller.kind === 'user' && user.id === caller.id) ||
        can(caller, 'user.v_glo') ||
        (can(caller, 'user.v_org') && user.organization.id === caller.organizationId);
      if (!allowed)
        throw forbidden('You lack the permission to view this user (user VIEW ORGANIZATION or GLOBAL).');
      return user;
    },
  );

  app.patch(
    '/user/:id',
    {
      schema: {
        tags: ['user'],
        summary: 'Update a user; `roles` and `rules` replace the current ones',
        params: IdParams,
        body: UserPatchBodySchema,
        response: { 200: UserSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { id } = request.params;
      const b = request.body ?? {};
      const user = await existingUser(id);
      const self = user.id === caller.id;
      const allowed =
        can(caller, 'user.e_glo') ||
        (can(caller, 'user.e_org') && user.organization_id === caller.organizationId) ||
        (can(caller, 'user.e_own') && self);
      if (!allowed)
        throw forbidden('You lack the permission to edit this user (user EDIT OWN, ORGANIZATION or GLOBAL).');

      if (b.password)
        throw new ApiError(
          'not_allowed_input',
          'Passwords cannot be changed here: use PATCH /password/change, or the password recovery.',
        );
      if (b.username === '') throw badRequest('The username cannot be empty.');
      if (b.email === '') throw badRequest('The e-mail address cannot be empty.');

      // A user keeps their organization: moved, they would keep their roles and rules there (docs/security.md).
      if (b.organization_id != null && b.organization_id !== user.organization_id)
        throw new ApiError(
          'not_allowed_input',
          'A user cannot be moved to another organization: they would keep their roles and rules there. Create a new account in the other organization instead.',
        );

      const newUsername = b.username ?? user.username;
      const renamed = newUsername !== user.username;
      if (renamed) {
        // The username is the login name: only its owner changes it, and never that of the root account.
        if (!self) throw new ApiError('not_allowed_input', 'You cannot change the username of another user.');
        if (user.username === ctx.config.root_user.username)
          throw new ApiError(
            'root_protected',
            `The root account '${user.username}' cannot be renamed: the server would create a new root account at its next start.`,
          );
        if (await usernameTaken(db(), newUsername, user.id))
          throw new ApiError('conflict', `A user with username '${newUsername}' already exists.`);
      }
      const newEmail = b.email ?? user.email;
      const emailChanged = newEmail !== user.email;

      const currentRoles = await roleIdsOfUser(db(), user.id);
      const roleIds = b.roles ? [...new Set(b.roles)] : null;
      if (roleIds) {
        const organizationId = user.organization_id;
        await checkRoleAssignment(db(), caller, {
          current: currentRoles,
          wanted: roleIds,
          self,
          organizationId,
        });
      }
      const currentRules = await ruleIdsOfUser(db(), user.id);
      const ruleIds = b.rules ? [...new Set(b.rules)] : null;
      if (ruleIds) await checkRuleAssignment(db(), caller, { current: currentRules, wanted: ruleIds, self });

      const firstname = b.firstname ?? user.firstname;
      const lastname = b.lastname ?? user.lastname;
      const changes = {
        email: emailChanged,
        names: firstname !== user.firstname || lastname !== user.lastname,
        roles: roleIds !== null && !sameIds(roleIds, currentRoles),
        rules: ruleIds !== null && !sameIds(ruleIds, currentRules),
      };
      if (!self && Object.values(changes).some(Boolean)) {
        // Managing another account needs every rule it holds: else a lower admin takes over a higher one (its
        // e-mail receives the password reset) or demotes it.
        const what = changes.email ? 'change their e-mail address' : 'change their account';
        await requireOutranks(db(), caller, user, what);
      }
      if (self && emailChanged) await requireCurrentPassword(ctx, request, user, b.current_password);
      // Only now, so that nobody learns which addresses are in use without the right to change this one.
      if (emailChanged && (await emailTaken(db(), newEmail, user.id)))
        throw new ApiError('conflict', `A user with e-mail address '${newEmail}' already exists.`);

      await updateUser(
        db(),
        user.id,
        { username: newUsername, email: newEmail, firstname, lastname },
        roleIds,
        ruleIds,
      ).catch(conflictOnRace);
      // Open sockets follow the new rules at once (docs/security.md).
      if (roleIds || ruleIds) ctx.events.identityChanged?.({ what: 'rooms', kind: 'user', id: user.id });
      const changed = [
        ...(renamed ? ['username'] : []),
        ...Object.entries(changes).flatMap(([field, yes]) => (yes ? [field] : [])),
      ];
      request.log.info({ event: 'user.updated', user_id: user.id, by: caller.id, changed }, 'user updated');
      return shownUser(user.id);
    },
  );

  app.delete(
    '/user/:id',
    {
      schema: {
        tags: ['user'],
        summary: 'Delete a user (yourself with user DELETE OWN; others with DELETE ORGANIZATION or GLOBAL)',
        params: IdParams,
        response: { 200: MessageSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { id } = request.params;
      const user = await existingUser(id);
      const allowed =
        can(caller, 'user.d_glo') ||
        (can(caller, 'user.d_org') && user.organization_id === caller.organizationId) ||
        (can(caller, 'user.d_own') && user.id === caller.id);
      if (!allowed)
        throw forbidden(
          'You lack the permission to delete this user (user DELETE OWN, ORGANIZATION or GLOBAL).',
        );
      if (user.username === ctx.config.root_user.username)
        throw new ApiError(
          'root_protected',
          `The root account '${user.username}' cannot be deleted: the server would create a new root account at its next start. Change its password instead.`,
        );
      await requireOutranks(db(), caller, user, 'delete their account');
      await deleteUser(db(), id);
      await endSessions(ctx, 'user', id, 'deleted');
      request.log.info({ event: 'user.deleted', user_id: id, by: caller.id }, 'user deleted');
      return { msg: `User id=${id} is removed from the database.` };
    },
  );
};
