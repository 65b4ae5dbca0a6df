/**
 * The 3.x routes the vantage6 4.x surface shares (docs/vantage6-4.md): a route plugin of the 3.x API registered at
 * `/v4/api` keeps only the routes vantage6 4.14 has, each under its 4.x path, so both surfaces run the very same
 * handlers, checks and repositories. A 3.x-only route is left out, and a call to it on the 4.x surface is answered
 * with a 404 naming its 3.x path (http/not-found.ts).
 */
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';

const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/**
 * `plugin` registered with only the routes `paths` names (`GET /organization` → the 4.x path, usually the same).
 * Route methods of the plugin's instance are intercepted; everything else it does (hooks, decorations) is unchanged.
 */
export function sharedRoutes(
  plugin: FastifyPluginAsync,
  paths: Readonly<Record<string, string>>,
): FastifyPluginAsync {
  return async (app, options) => {
    const only = new Proxy(app, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof prop !== 'string' || !ROUTE_METHODS.has(prop) || typeof value !== 'function') return value;
        return (url: string, ...rest: unknown[]) => {
          const path = paths[`${prop.toUpperCase()} ${url}`];
          if (path === undefined) return target;
          return (value as (...a: unknown[]) => FastifyInstance).call(target, path, ...rest);
        };
      },
    });
    await plugin(only, options);
  };
}

/** The same path on both surfaces, for each `METHOD /path` given. */
export const samePaths = (...keys: string[]): Record<string, string> =>
  Object.fromEntries(keys.map((k) => [k, k.slice(k.indexOf(' ') + 1)]));
