import type { FastifyInstance } from 'fastify';
import { policyKey } from '../auth/policy.js';
import type { ServerConfig } from '../config/schema.js';
import { DATA_FIELDS, limitRouteSchemas } from './input-guard.js';
import { routeMethods } from './route-policies.js';
import { apiPrefixes, surfaceRoute } from './api-surfaces.js';

/**
 * The input limits of every route under `api_path` (docs/security.md, "Input limits"): the data of runs gets the
 * larger body limit, every schema its string and integer bounds. Call before the routes are registered.
 */
export function limitRoutes(app: FastifyInstance, config: ServerConfig): void {
  const prefixes = apiPrefixes(config.api_path);
  app.addHook('onRoute', (route) => {
    const rel = surfaceRoute(route.url, prefixes)?.rel;
    if (rel === undefined) return;
    const methods = routeMethods(route.method);
    const data = methods.some((m) => DATA_FIELDS[policyKey(m, rel)]);
    if (data && route.bodyLimit === undefined) route.bodyLimit = config.task_body_limit_bytes;
    limitRouteSchemas(
      route,
      policyKey(methods.find((m) => DATA_FIELDS[policyKey(m, rel)]) ?? methods[0] ?? 'GET', rel),
      {
        stringChars: config.limits.string_chars,
        textChars: config.limits.text_chars,
        dataChars: config.task_body_limit_bytes,
      },
    );
  });
}
