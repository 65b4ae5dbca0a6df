import type { FastifyInstance } from 'fastify';
import FindMyWay from 'find-my-way';
import { ERROR_CODES } from '../errors.js';
import { routeMethods } from './route-policies.js';
import { surfaceRoute, V4_API_PATH } from './api-surfaces.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Answers a request no route takes: 405 with an `Allow` header when the path is a route of its API surface under
 * another method; 404 naming the endpoint otherwise, and naming the other surface's path when the route is there
 * (a 3.x call on the 4.x surface, or the reverse). Call before the routes are registered (it learns them as they are).
 */
export function answerUnknownRoutes(app: FastifyInstance, prefixes: readonly string[]): void {
  const known = new Map(prefixes.map((p) => [p, FindMyWay()]));
  app.addHook('onRoute', (route) => {
    const surface = surfaceRoute(route.url, prefixes);
    if (!surface) return;
    for (const m of routeMethods(route.method))
      known.get(surface.prefix)?.on(m as 'GET', route.url, () => undefined);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const surface = surfaceRoute(path, prefixes);
    const own = surface ? known.get(surface.prefix) : undefined;
    const allowed = own ? METHODS.filter((m) => m !== request.method && own.find(m, path)) : [];
    if (allowed.length > 0) {
      void reply.header('Allow', allowed.join(', '));
      return reply.status(ERROR_CODES.method_not_allowed.status).send({
        msg: ERROR_CODES.method_not_allowed.description,
        message: ERROR_CODES.method_not_allowed.description,
        code: 'method_not_allowed',
      });
    }
    const elsewhere = surface
      ? prefixes
          .filter((p) => p !== surface.prefix)
          .map((p) => `${p}${surface.rel}`)
          .find((other) => otherHas(known, prefixes, other, request.method))
      : undefined;
    const msg = elsewhere
      ? `No such endpoint: ${request.method} ${path}. It is part of the vantage6 ${elsewhere.startsWith(`${V4_API_PATH}/`) ? '4.x' : '3.x'} contract: ${request.method} ${elsewhere}`
      : `No such endpoint: ${request.method} ${path}`;
    return reply.status(ERROR_CODES.route_not_found.status).send({ msg, code: 'route_not_found' });
  });
}

/** Whether the surface of `path` has a route for it under `method`. */
function otherHas(
  known: Map<string, ReturnType<typeof FindMyWay>>,
  prefixes: readonly string[],
  path: string,
  method: string,
): boolean {
  const surface = surfaceRoute(path, prefixes);
  return surface !== undefined && known.get(surface.prefix)?.find(method as 'GET', path) !== null;
}
