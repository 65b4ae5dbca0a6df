import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { randomUUID } from 'node:crypto';
import { hashApiKey, hashPassword } from '../auth/passwords.js';
import { bearerToken } from '../auth/authenticate.js';
import { admitFromAddress } from '../auth/login-throttle.js';
import { logOut, openSession, rotateSession, type SessionTokens } from '../auth/sessions.js';
import { checkPassword } from '../auth/password-check.js';
import {
  findUserByUsername,
  nodeIdByApiKeyHash,
  recordLogin,
  recordNodeLogin,
} from '../repositories/login.js';
import { roleNamesOfUser } from '../repositories/role.js';
import { findTask, hasRunOf, hasRuns, isTaskComplete, readDatabases } from '../repositories/task/index.js';
import { ContainerTokenAnswerSchema, ContainerTokenRequestSchema, requestedDatabases } from '@federa/common';
import { MessageSchema, errorResponses } from '../serializers/common.js';
import type { AppContext } from '../context.js';
import { V4_API_PATH } from '../http/api-surfaces.js';

const TokenAnswer = Type.Object({
  access_token: Type.String(),
  refresh_token: Type.String(),
  refresh_url: Type.String(),
  user_url: Type.Optional(Type.String()),
  node_url: Type.Optional(Type.String()),
});

export async function roleNames(ctx: AppContext, userId: number): Promise<string[]> {
  return roleNamesOfUser(ctx.dbh.db, userId);
}

/** The login answer (docs/api.md#tokens): the session's tokens and where to refresh them. */
function answerWith(ctx: AppContext, kind: 'user' | 'node', id: number, tokens: SessionTokens) {
  const base = ctx.config.api_path;
  return {
    ...tokens,
    refresh_url: `${base}/token/refresh`,
    ...(kind === 'user' ? { user_url: `${base}/user/${id}` } : { node_url: `${base}/node/${id}` }),
  };
}

/**
 * The one answer to every refused login, whether the user exists, the password is wrong or the account is
 * locked or slowed: the answer must not tell which (docs/security.md).
 */
const refusedLogin = (policy: { max_failed_attempts: number; inactivation_minutes: number }): ApiError =>
  new ApiError(
    'invalid_credentials',
    `Invalid username or password. After ${policy.max_failed_attempts} failed logins from one address an account is locked for that address for ${policy.inactivation_minutes} minutes; a password reset link always works and unlocks it.`,
  );

/** A login's answer: the session's tokens (also in the `jwt-token` header), the audit log's actor set. */
/** The API surface a login came through (docs/vantage6-4.md): its session's sockets hear that surface's events. */
const surfaceOf = (request: FastifyRequest): 'v3' | 'v4' =>
  (request.routeOptions.url ?? '').startsWith(`${V4_API_PATH}/`) ? 'v4' : 'v3';

function loggedIn(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: 'user' | 'node',
  id: number,
  tokens: SessionTokens,
) {
  const answer = answerWith(ctx, kind, id, tokens);
  request.auditActor = { kind, id };
  void reply.header('jwt-token', answer.access_token);
  return answer;
}

/** `/token/*` (docs/api.md#tokens, docs/access-control.md#tokens). */
export const tokenRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const policy = ctx.config.password_policy;
  // Compared against when the user does not exist, so that an unknown name costs the same bcrypt work.
  const absentUserHash = await hashPassword(randomUUID(), ctx.config.bcrypt_rounds);

  app.post(
    '/token/user',
    {
      schema: {
        tags: ['token'],
        summary: 'Log in as a user',
        security: [],
        body: Type.Object({
          username: Type.String({ minLength: 1 }),
          password: Type.String({ minLength: 1 }),
          mfa_code: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
        }),
        response: { 200: TokenAnswer, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { username, password } = request.body;
      // Every check is counted before it is made, per address, per account and address, and per account, and taken
      // back once it passed: guesses sent together get no more checks than guesses sent one after the other
      // (docs/security.md).
      const address = admitFromAddress(ctx.throttle, request.ip, 'failed logins');
      const db = ctx.dbh.db;
      const user = await findUserByUsername(db, username);
      const outcome = await checkPassword(ctx, request.ip, user, password, absentUserHash);
      if (!user || outcome !== 'passed') {
        request.log.info(
          {
            event: 'login.failed',
            ...(user ? { user_id: user.id, refused: outcome } : { unknown_user: true }),
          },
          'failed login',
        );
        throw refusedLogin(policy);
      }
      address.succeeded();
      await recordLogin(db, user.id);
      const tokens = await openSession(
        ctx,
        'user',
        user.id,
        await roleNames(ctx, user.id),
        surfaceOf(request),
      );
      return loggedIn(ctx, request, reply, 'user', user.id, tokens);
    },
  );

  app.post(
    '/token/node',
    {
      schema: {
        tags: ['token'],
        summary: 'Log in as a node with its API key',
        security: [],
        body: Type.Object({ api_key: Type.String({ minLength: 1 }) }),
        response: { 200: TokenAnswer, ...errorResponses },
      },
    },
    async (request, reply) => {
      const address = admitFromAddress(ctx.throttle, request.ip, 'failed logins');
      const nodeId = await nodeIdByApiKeyHash(ctx.dbh.db, hashApiKey(request.body.api_key));
      if (nodeId === undefined)
        throw new ApiError('invalid_credentials', 'Invalid API key: no node has this key.');
      address.succeeded();
      await recordNodeLogin(ctx.dbh.db, nodeId);
      return loggedIn(
        ctx,
        request,
        reply,
        'node',
        nodeId,
        await openSession(ctx, 'node', nodeId, [], surfaceOf(request)),
      );
    },
  );

  app.post(
    '/token/refresh',
    {
      schema: {
        tags: ['token'],
        summary: 'New tokens from a refresh token (Authorization: Bearer <refresh token>)',
        response: { 200: TokenAnswer, ...errorResponses },
      },
    },
    async (request, reply) => {
      const caller = request.caller;
      if (!caller || (caller.kind !== 'user' && caller.kind !== 'node'))
        throw new ApiError('invalid_token', 'Only user and node tokens can be refreshed');
      // The caller's session was found live while authenticating; the presented token must be its current one.
      const claims = await ctx.tokens.verify(bearerToken(request.headers.authorization));
      const roles = caller.kind === 'user' ? await roleNames(ctx, caller.id) : [];
      const answer = answerWith(ctx, caller.kind, caller.id, await rotateSession(ctx, claims, roles));
      void reply.header('jwt-token', answer.access_token);
      return answer;
    },
  );

  // vantage6 4.x: an algorithm store asks the server who holds a user token (docs/store.md#who-calls-a-store).
  app.post(
    '/token/user/validate',
    {
      schema: {
        tags: ['token'],
        summary: 'Who holds this user token (asked by algorithm stores)',
        response: {
          200: Type.Object({
            msg: Type.String(),
            user_id: Type.Integer(),
            username: Type.String(),
            email: Type.String(),
            organization_id: Type.Integer(),
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const user = request.caller?.user;
      if (!user) throw new ApiError('wrong_caller', 'Only user tokens can be validated');
      return {
        msg: 'Token is valid',
        user_id: user.id,
        username: user.username,
        email: user.email,
        organization_id: user.organization_id,
      };
    },
  );

  app.post(
    '/token/logout',
    {
      schema: {
        tags: ['token'],
        summary:
          'End the session of the access token presented (Authorization: Bearer <access token>): it and its refresh tokens are refused afterwards',
        response: { 200: MessageSchema, ...errorResponses },
      },
    },
    async (request) => {
      const caller = request.caller;
      if (!caller || (caller.kind !== 'user' && caller.kind !== 'node'))
        throw new ApiError('wrong_caller', 'Only user and node sessions can be logged out');
      await logOut(ctx, await ctx.tokens.verify(bearerToken(request.headers.authorization)));
      return { msg: 'Logged out: this session has ended; its access and refresh tokens no longer work.' };
    },
  );

  app.post(
    '/token/container',
    {
      schema: {
        tags: ['token'],
        summary: 'A token for an algorithm container (nodes only)',
        body: ContainerTokenRequestSchema,
        response: { 200: ContainerTokenAnswerSchema, ...errorResponses },
      },
    },
    async (request) => {
      const node = request.caller?.node;
      if (!node) throw new ApiError('wrong_caller', 'Only nodes can request container tokens');
      const db = ctx.dbh.db;
      const task = await findTask(db, request.body.task_id);
      if (!task) throw new ApiError('bad_request', `Task id=${request.body.task_id} does not exist`);
      if (task.image !== request.body.image)
        throw new ApiError('forbidden', `Image '${request.body.image}' is not the image of task ${task.id}`);
      if (task.collaboration_id === null || task.collaboration_id !== node.collaboration_id)
        throw new ApiError('forbidden', `Task ${task.id} is not in this node's collaboration`);
      // A container acts for its node's organization: only a task that runs there gets one. Otherwise a node could
      // take a token for any task of its collaboration and post sub-tasks in the name of that task's researcher.
      if (!(await hasRunOf(db, task.id, node.organization_id)))
        throw new ApiError('forbidden', `Task ${task.id} has no run for this node's organization`);
      const complete = await isTaskComplete(db, task.id);
      if (complete && (await hasRuns(db, task.id)))
        throw new ApiError('bad_request', `Task ${task.id} is already complete`);
      return {
        container_token: await ctx.tokens.container(
          {
            node_id: node.id,
            organization_id: node.organization_id,
            collaboration_id: task.collaboration_id,
            task_id: task.id,
            image: task.image,
            database: task.database,
            databases: requestedDatabases({
              database: task.database,
              databases: readDatabases(task.databases),
            }),
          },
          ctx.config.container_token_max_hours * 3600,
        ),
      };
    },
  );
};
