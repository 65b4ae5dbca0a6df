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
import { algorithmStoreRoutes } from '../algorithm-store.js';
import { vpnRoutes } from '../vpn.js';
import { portRoutes } from '../port.js';
import { samePaths, sharedRoutes } from './shared-routes.js';
import { taskStatusRoute } from './task-status.js';
import { studyRoutes } from './study.js';
import { blobstreamRoutes } from './blobstream.js';
import { takeBlobInputs } from './blob-inputs.js';
import { blobUploadRoutes } from './blob-upload.js';
import { moreV4Routes } from './more-routes.js';
import { answerIn4x, answerOf, fourQuery } from './answers.js';
import { V4_API_PATH } from '../../http/api-surfaces.js';
import { fourInput } from './bodies.js';
import { fourSort } from './sorting.js';
import type { V4ApiDocs } from './api-docs.js';

/** Each 3.x route plugin with the routes vantage6 4.14 has too, by method and path. */
const SHARED: [FastifyPluginAsync, Record<string, string>][] = [
  [
    tokenRoutes as FastifyPluginAsync,
    samePaths(
      'POST /token/user',
      'POST /token/node',
      'POST /token/container',
      'POST /token/refresh',
      'POST /token/user/validate',
    ),
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
      'POST /collaboration/:id/organization',
      'DELETE /collaboration/:id/organization',
      'POST /collaboration/:id/node',
      'DELETE /collaboration/:id/node',
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
  [
    resultRoutes as FastifyPluginAsync,
    { 'GET /result': '/run', 'GET /result/:id': '/run/:id', 'PATCH /result/:id': '/run/:id' },
  ],
  [killRoutes as FastifyPluginAsync, samePaths('POST /kill/task', 'POST /kill/node/tasks')],
  // The VPN of algorithms (docs/vpn.md): as at /api.
  [
    vpnRoutes as FastifyPluginAsync,
    samePaths('GET /vpn', 'POST /vpn/update', 'GET /vpn/algorithm/addresses'),
  ],
  [portRoutes as FastifyPluginAsync, samePaths('POST /port', 'DELETE /port')],
  [
    algorithmStoreRoutes as FastifyPluginAsync,
    samePaths(
      'GET /algorithmstore',
      'GET /algorithmstore/:id',
      'POST /algorithmstore',
      'DELETE /algorithmstore/:id',
    ),
  ],
];

/** The route's path relative to the surface. */
const relPath = (request: FastifyRequest): string =>
  request.routeOptions.url?.slice(V4_API_PATH.length) ?? '';

/**
 * 4.x listings: always `{data, links}`, and page 1 of 10 items when no page is asked for (a 3.x listing without
 * `page` gives every item); 4.x's names of includes and filters (answers.ts). Set before the query is validated, so
 * the route reads them as if the caller sent them.
 */
async function fourRequest(request: FastifyRequest): Promise<void> {
  const rel = relPath(request);
  fourQuery(request, rel);
  fourSort(request, rel);
  await fourInput(request, rel);
  if (request.method !== 'GET' || rel.includes(':') || !answerOf({ method: 'GET', url: rel })) return;
  const query = request.query as Record<string, unknown>;
  const include = query.include === undefined ? [] : [query.include].flat();
  query.include = [...include, 'metadata'];
  if (query.page === undefined) query.page = '1';
}

/** `docs` collects the surface's routes for its OpenAPI document (api-docs.ts). */
export const registerV4Routes: FastifyPluginAsyncTypebox<{ docs?: V4ApiDocs }> = async (app, options) => {
  app.addHook('preValidation', fourRequest);
  app.addHook('onSend', takeBlobInputs);
  app.addHook('onRoute', (route) => {
    answerIn4x(route);
    options.docs?.add(route);
    // The 3.x OpenAPI document (/apidocs) describes the 3.x surface only.
    route.schema = { ...(route.schema ?? {}), hide: true };
  });
  for (const [plugin, paths] of SHARED) await app.register(sharedRoutes(plugin, paths));
  await app.register(taskStatusRoute);
  await app.register(studyRoutes);
  await app.register(blobstreamRoutes);
  await app.register(blobUploadRoutes);
  await app.register(moreV4Routes);
};
