import type { FastifyInstance } from 'fastify';
import FindMyWay from 'find-my-way';
import { ERROR_CODES } from '../errors.js';
import { routeMethods } from './route-policies.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Answers a request no route takes: 405 with an `Allow` header when the path is a route of the API under another
 * method, 404 naming the endpoint otherwise. Call before the routes are registered (it learns them as they are).
 */
export function answerUnknownRoutes(app: FastifyInstance, apiPath: string): void {
  const known = FindMyWay();
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(`${apiPath}/`)) return;
    for (const m of routeMethods(route.method)) known.on(m as 'GET', route.url, () => undefined);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((m) => m !== request.method && known.find(m, path));
    if (allowed.length > 0) {
      void reply.header('Allow', allowed.join(', '));
      return reply.status(ERROR_CODES.method_not_allowed.status).send({
        msg: ERROR_CODES.method_not_allowed.description,
        message: ERROR_CODES.method_not_allowed.description,
        code: 'method_not_allowed',
      });
    }
    return reply
      .status(ERROR_CODES.route_not_found.status)
      .send({ msg: `No such endpoint: ${request.method} ${path}`, code: 'route_not_found' });
  });
}
