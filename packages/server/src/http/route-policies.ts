import type { FastifyInstance } from 'fastify';
import { POLICIES, V4_ONLY_POLICIES, policyKey } from '../auth/policy.js';
import { surfaceRoute, V4_API_PATH } from './api-surfaces.js';

/** Routes (relative to their surface's prefix) registered without a policy; `buildApp` refuses to finish when any exist. */
export class MissingPolicyError extends Error {}

/** The methods a route's policy is looked up for; HEAD and OPTIONS follow their GET and CORS. */
export function routeMethods(method: string | string[]): string[] {
  return (Array.isArray(method) ? method : [method]).filter((m) => m !== 'HEAD' && m !== 'OPTIONS');
}

/**
 * Gives every route under the API's prefixes (http/api-surfaces.ts) its policy from the one policy table (auth/policy.ts), which the
 * authentication hook reads. Call before the routes are registered, and {@link checkPolicies} once they are.
 */
export function attachPolicies(
  app: FastifyInstance,
  prefixes: readonly string[],
  /** A prefix whose routes answer to rules of their own (the algorithm store, docs/store.md). */
  except?: string,
): { missing: string[] } {
  const missing: string[] = [];
  app.addHook('onRoute', (route) => {
    if (except !== undefined && route.url.startsWith(`${except}/`)) return;
    const surface = surfaceRoute(route.url, prefixes);
    if (surface === undefined) return;
    const { prefix, rel } = surface;
    for (const m of routeMethods(route.method)) {
      const key = policyKey(m, rel);
      const policy = POLICIES[key] ?? (prefix === V4_API_PATH ? V4_ONLY_POLICIES[key] : undefined);
      if (!policy) {
        missing.push(prefix === V4_API_PATH ? `${key} (at ${prefix})` : key);
        continue;
      }
      route.config = { ...(route.config ?? {}), policy };
    }
  });
  return { missing };
}

/** Throws {@link MissingPolicyError} naming every route registered without a policy. */
export function checkPolicies(policies: { missing: string[] }): void {
  if (policies.missing.length > 0) {
    throw new MissingPolicyError(`routes without a policy in auth/policy.ts: ${policies.missing.join(', ')}`);
  }
}
