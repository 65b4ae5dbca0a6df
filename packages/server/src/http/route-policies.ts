import type { FastifyInstance } from 'fastify';
import { POLICIES, policyKey } from '../auth/policy.js';

/** Routes (relative to `api_path`) registered without a policy; `buildApp` refuses to finish when any exist. */
export class MissingPolicyError extends Error {}

/** The methods a route's policy is looked up for; HEAD and OPTIONS follow their GET and CORS. */
export function routeMethods(method: string | string[]): string[] {
  return (Array.isArray(method) ? method : [method]).filter((m) => m !== 'HEAD' && m !== 'OPTIONS');
}

/**
 * Gives every route under `apiPath` its policy from the one policy table (auth/policy.ts), which the
 * authentication hook reads. Call before the routes are registered, and {@link checkPolicies} once they are.
 */
export function attachPolicies(
  app: FastifyInstance,
  apiPath: string,
  /** A prefix whose routes answer to rules of their own (the algorithm store, docs/store.md). */
  except?: string,
): { missing: string[] } {
  const missing: string[] = [];
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(`${apiPath}/`)) return;
    if (except !== undefined && route.url.startsWith(`${except}/`)) return;
    const rel = route.url.slice(apiPath.length);
    for (const m of routeMethods(route.method)) {
      const policy = POLICIES[policyKey(m, rel)];
      if (!policy) {
        missing.push(policyKey(m, rel));
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
