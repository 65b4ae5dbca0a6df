/**
 * The vantage6 4.x surface at `/v4/api` (docs/vantage6-4.md): the 3.x routes 4.14 shares, through the same handlers
 * (shared-routes.ts), every listing as `{data, links}` with 4.x's default page, and the routes only 4.x has.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { tokenRoutes } from '../token.js';
import { recoverRoutes } from '../recover.js';
import { healthRoutes } from '../health.js';
import { userRoutes } from '../user.js';
import { organizationRoutes } from '../organization.js';
import { collaborationRoutes } from '../collaboration/index.js';
import { nodeRoutes } from '../node.js';
import { taskRoutes } from '../task/index.js';
import { resultRoutes } from '../result.js';
import { roleRoutes } from '../role.js';
import { ruleRoutes } from '../rule.js';
import { killRoutes } from '../kill.js';
import { passwordRoutes } from '../password.js';
import { samePaths, sharedRoutes } from './shared-routes.js';
import { taskStatusRoute } from './task-status.js';

/** Each 3.x route plugin with the routes vantage6 4.14 has too, by method and path. */
const SHARED: [FastifyPluginAsync, Record<string, string>][] = [
  [
    tokenRoutes as FastifyPluginAsync,
    samePaths('POST /token/user', 'POST /token/node', 'POST /token/container', 'POST /token/refresh'),
  ],
  [recoverRoutes as FastifyPluginAsync, samePaths('POST /recover/lost', 'POST /recover/reset')],
  [passwordRoutes as FastifyPluginAsync, samePaths('PATCH /password/change')],
  [healthRoutes as FastifyPluginAsync, samePaths('GET /health', 'GET /version')],
  [
    userRoutes as FastifyPluginAsync,
    samePaths('GET /user', 'POST /user', 'GET /user/:id', 'PATCH /user/:id', 'DELETE /user/:id'),
  ],
  [
    organizationRoutes as FastifyPluginAsync,
    samePaths('GET /organization', 'POST /organization', 'GET /organization/:id', 'PATCH /organization/:id'),
  ],
  [
    collaborationRoutes as FastifyPluginAsync,
    samePaths(
      'GET /collaboration',
      'POST /collaboration',
      'GET /collaboration/:id',
      'PATCH /collaboration/:id',
      'DELETE /collaboration/:id',
    ),
  ],
  [
    nodeRoutes as FastifyPluginAsync,
    samePaths('GET /node', 'POST /node', 'GET /node/:id', 'PATCH /node/:id', 'DELETE /node/:id'),
  ],
  [
    roleRoutes as FastifyPluginAsync,
    samePaths('GET /role', 'POST /role', 'GET /role/:id', 'PATCH /role/:id', 'DELETE /role/:id'),
  ],
  [ruleRoutes as FastifyPluginAsync, samePaths('GET /rule', 'GET /rule/:id')],
  [
    taskRoutes as FastifyPluginAsync,
    samePaths('GET /task', 'POST /task', 'GET /task/:id', 'DELETE /task/:id'),
  ],
  // 4.x's run is Federa's result; 4.x keeps `/result` for reading outputs.
  [resultRoutes as FastifyPluginAsync, samePaths('GET /result', 'GET /result/:id')],
  [resultRoutes as FastifyPluginAsync, { 'GET /result': '/run', 'GET /result/:id': '/run/:id' }],
  [killRoutes as FastifyPluginAsync, samePaths('POST /kill/task', 'POST /kill/node/tasks')],
];

/** Whether the route answers a paginated listing (its answer is the `Paginated` union: a list or `{data, links}`). */
function isListing(request: FastifyRequest): boolean {
  const response = (request.routeOptions.schema?.response as Record<string, unknown> | undefined)?.['200'];
  return ((response as { anyOf?: unknown[] } | undefined)?.anyOf?.length ?? 0) === 2;
}

/**
 * 4.x listings: always `{data, links}`, and page 1 of 10 items when no page is asked for (a 3.x listing without
 * `page` gives every item). Set before the query is validated, so the route reads them as if the caller sent them.
 */
async function fourListing(request: FastifyRequest): Promise<void> {
  if (request.method !== 'GET' || !isListing(request)) return;
  const query = request.query as Record<string, unknown>;
  const include = query.include === undefined ? [] : [query.include].flat();
  query.include = [...include, 'metadata'];
  if (query.page === undefined) query.page = '1';
}

export const registerV4Routes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('preValidation', fourListing);
  // The 3.x OpenAPI document (/apidocs) describes the 3.x surface only.
  app.addHook('onRoute', (route) => {
    route.schema = { ...(route.schema ?? {}), hide: true };
  });
  for (const [plugin, paths] of SHARED) await app.register(sharedRoutes(plugin, paths));
  await app.register(taskStatusRoute);
};
