import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError, badRequest, forbidden, notFound } from '../errors.js';
import { can, type Caller } from '../auth/caller.js';
import { hashPassword, passwordPolicyProblem } from '../auth/passwords.js';
import { paginate, PaginationQuery } from '../http/pagination.js';
import { parseClientTime } from '../http/datetime.js';
import { errorResponses, IdParams, MessageSchema, Paginated } from '../serializers/common.js';
import { loadUsers, UserSchema } from '../serializers/user.js';
import {
  deleteUser,
  emailTaken,
  findUser,
  insertUser,
  isUniqueViolation,
  organizationExists,
  replaceUserRoles,
  replaceUserRules,
  usernameTaken,
} from '../repositories/user.js';
import {
  checkRoleAssignment,
  checkRuleAssignment,
  findRoles,
  roleIdsOfUser,
  ruleIdsOfUser,
  ruleKeysById,
} from '../repositories/role.js';

/**
 * An optional body field that also accepts `null` (3.x clients send `null` for fields they were not given).
 * Written as OpenAPI `nullable` rather than a union, so that type coercion keeps `""` a string.
 */
const Opt = <T extends TSchema>(t: T) =>
  Type.Optional(Type.Unsafe<Static<T> | null>({ ...t, nullable: true }));
const Ids = Type.Array(Type.Integer({ minimum: 0 }));

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

const NewUserBody = Type.Object({
  username: Type.String({ minLength: 1 }),
  firstname: Type.String(),
  lastname: Type.String(),
  password: Type.String(),
  email: Type.String({ minLength: 1 }),
  organization_id: Opt(Type.Integer({ description: 'default: your own organization' })),
  roles: Opt(Ids),
  rules: Opt(Ids),
});

const UserPatchBody = Type.Object({
  username: Opt(Type.String()),
  firstname: Opt(Type.String()),
  lastname: Opt(Type.String()),
  email: Opt(Type.String()),
  password: Opt(Type.String({ description: 'refused: change passwords with PATCH /password/change' })),
  roles: Opt(Ids),
  rules: Opt(Ids),
  organization_id: Opt(
    Type.Integer({ description: 'move the user to another organization (needs user EDIT GLOBAL)' }),
  ),
});

const callerOf = (request: FastifyRequest): Caller => {
  if (!request.caller) throw new ApiError('wrong_caller');
  return request.caller;
};

const storedTime = (field: string, value: string): string => {
  const t = parseClientTime(value);
  if (t === null)
    throw new ApiError(
      'validation_failed',
      `query parameter '${field}' must be an ISO-8601 date-time (YYYY-MM-DDTHH:MM:SS)`,
    );
  return t;
};

const conflictOnRace = (error: unknown): never => {
  if (isUniqueViolation(error))
    throw new ApiError('conflict', 'The username or e-mail address is already in use.');
  throw error;
};

/** `/user` and `/user/{id}` (api.md §4.4, auth-rbac.md §6). */
export const userRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;

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
      let ids = db().selectFrom('user').select('user.id as id').orderBy('user.id');
      if (!can(caller, 'user.v_glo')) {
        if (!can(caller, 'user.v_org'))
          throw forbidden('You lack the permission to list users (user VIEW ORGANIZATION or GLOBAL).');
        ids = ids.where('user.organization_id', '=', caller.organizationId);
      }
      for (const field of ['username', 'firstname', 'lastname', 'email'] as const) {
        const value = q[field];
        if (value !== undefined) ids = ids.where(`user.${field}`, 'like', value);
      }
      if (q.organization_id !== undefined) ids = ids.where('user.organization_id', '=', q.organization_id);
      if (q.last_seen_from !== undefined)
        ids = ids.where('user.last_seen', '>=', storedTime('last_seen_from', q.last_seen_from));
      if (q.last_seen_till !== undefined)
        ids = ids.where('user.last_seen', '<=', storedTime('last_seen_till', q.last_seen_till));
      const roleId = q.role_id;
      if (roleId !== undefined) {
        ids = ids.where('user.id', 'in', (eb) =>
          eb.selectFrom('user_role').select('user_role.user_id').where('user_role.role_id', '=', roleId),
        );
      }
      const ruleId = q.rule_id;
      if (ruleId !== undefined) {
        ids = ids.where('user.id', 'in', (eb) =>
          eb.selectFrom('user_rule').select('user_rule.user_id').where('user_rule.rule_id', '=', ruleId),
        );
      }
      return paginate(db(), request, reply, ids, (page) => loadUsers(ctx, page));
    },
  );

  app.post(
    '/user',
    {
      schema: {
        tags: ['user'],
        summary: 'Create a user (for another organization: user CREATE GLOBAL)',
        body: NewUserBody,
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
      const [out] = await loadUsers(ctx, [id]);
      if (!out) throw notFound('user', id);
      return reply.status(201).send(out);
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
      const user = await findUser(db(), id);
      if (!user) throw notFound('user', id);
      const allowed =
        user.id === caller.id ||
        can(caller, 'user.v_glo') ||
        (can(caller, 'user.v_org') && user.organization_id === caller.organizationId);
      if (!allowed)
        throw forbidden('You lack the permission to view this user (user VIEW ORGANIZATION or GLOBAL).');
      const [out] = await loadUsers(ctx, [id]);
      if (!out) throw notFound('user', id);
      return out;
    },
  );

  app.patch(
    '/user/:id',
    {
      schema: {
        tags: ['user'],
        summary: 'Update a user; `roles` and `rules` replace the current ones',
        params: IdParams,
        body: UserPatchBody,
        response: { 200: UserSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { id } = request.params;
      const b = request.body ?? {};
      const user = await findUser(db(), id);
      if (!user) throw notFound('user', id);
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
      const newUsername = b.username ?? user.username;
      if (newUsername !== user.username) {
        if (await usernameTaken(db(), newUsername, user.id))
          throw new ApiError('conflict', `A user with username '${newUsername}' already exists.`);
        // Only the user themselves (or a global user editor such as root) renames an account: it is their login.
        if (!self && !can(caller, 'user.e_glo'))
          throw new ApiError('not_allowed_input', 'You cannot change the username of another user.');
      }
      const newEmail = b.email ?? user.email;
      if (newEmail !== user.email && (await emailTaken(db(), newEmail, user.id))) {
        throw new ApiError('conflict', `A user with e-mail address '${newEmail}' already exists.`);
      }

      const organizationId = b.organization_id ?? user.organization_id;
      if (organizationId !== user.organization_id) {
        if (!can(caller, 'user.e_glo'))
          throw forbidden(
            'You lack the permission to move a user to another organization (user EDIT GLOBAL).',
          );
        if (!(await organizationExists(db(), organizationId))) throw notFound('organization', organizationId);
      }

      const currentRoles = await roleIdsOfUser(db(), user.id);
      const roleIds = b.roles ? [...new Set(b.roles)] : null;
      // A user who moves keeps their roles, so those are checked against the new organization too.
      if (roleIds || organizationId !== user.organization_id) {
        const wanted = roleIds ?? currentRoles;
        await checkRoleAssignment(db(), caller, { current: currentRoles, wanted, self, organizationId });
      }
      const ruleIds = b.rules ? [...new Set(b.rules)] : null;
      if (ruleIds) {
        const current = await ruleIdsOfUser(db(), user.id);
        await checkRuleAssignment(db(), caller, { current, wanted: ruleIds, self });
      }

      await db()
        .transaction()
        .execute(async (trx) => {
          await trx
            .updateTable('user')
            .set({
              username: newUsername,
              email: newEmail,
              firstname: b.firstname ?? user.firstname,
              lastname: b.lastname ?? user.lastname,
              organization_id: organizationId,
            })
            .where('id', '=', user.id)
            .execute();
          if (roleIds) await replaceUserRoles(trx, user.id, roleIds);
          if (ruleIds) await replaceUserRules(trx, user.id, ruleIds);
        })
        .catch(conflictOnRace);
      request.log.info({ event: 'user.updated', user_id: user.id, by: caller.id }, 'user updated');
      const [out] = await loadUsers(ctx, [user.id]);
      if (!out) throw notFound('user', user.id);
      return out;
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
      const user = await findUser(db(), id);
      if (!user) throw notFound('user', id);
      const allowed =
        can(caller, 'user.d_glo') ||
        (can(caller, 'user.d_org') && user.organization_id === caller.organizationId) ||
        (can(caller, 'user.d_own') && user.id === caller.id);
      if (!allowed)
        throw forbidden(
          'You lack the permission to delete this user (user DELETE OWN, ORGANIZATION or GLOBAL).',
        );
      await deleteUser(db(), id);
      request.log.info({ event: 'user.deleted', user_id: id, by: caller.id }, 'user deleted');
      return { msg: `User id=${id} is removed from the database.` };
    },
  );
};
