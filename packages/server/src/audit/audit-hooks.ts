/**
 * Hooks every audited request into the audit log (docs/audit.md): while the log cannot be written, audited requests
 * are refused (503 `audit_unavailable`) before anything runs; each audited answer waits for its entry. When that
 * entry cannot be written, an answer that changed nothing (a read, a login) is replaced by that 503; a change that
 * is already made is answered as it is, and its entry goes to the server log at error level.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { policyKey } from '../auth/policy.js';
import { ERROR_CODES } from '../errors.js';
import { surfaceRoute } from '../http/api-surfaces.js';
import type { ServerAudit } from './server-audit.js';
import { changesNothing, describeRequest, isAudited, type AuditActor } from './audited-requests.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who made the request when the token did not say (set by the login routes). */
    auditActor: AuditActor | null;
  }
}

const UNAVAILABLE = JSON.stringify({
  msg: ERROR_CODES.audit_unavailable.description,
  code: 'audit_unavailable',
});

/** The policy key of an API request (`POST /user`), or undefined outside the API. */
function routeKey(request: FastifyRequest, prefixes: readonly string[]): string | undefined {
  const url = request.routeOptions.url;
  if (!request.routeOptions.config.policy || url === undefined) return undefined;
  const rel = surfaceRoute(url, prefixes)?.rel;
  return rel === undefined ? undefined : policyKey(request.method, rel);
}

export function installAuditHooks(
  app: FastifyInstance,
  audit: ServerAudit,
  prefixes: readonly string[],
): void {
  app.decorateRequest('auditActor', null);
  app.addHook('onRequest', async (request, reply) => {
    const key = routeKey(request, prefixes);
    if (key === undefined || !isAudited(request.method, key)) return;
    if (await audit.writable()) return;
    return reply.status(503).header('content-type', 'application/json; charset=utf-8').send(UNAVAILABLE);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const key = routeKey(request, prefixes);
    if (key === undefined || !isAudited(request.method, key)) return payload;
    // The refusal above is not itself recorded (nothing was done), nor is it a request the log could take.
    if (reply.statusCode === 503 && payload === UNAVAILABLE) return payload;
    const { event, fields } = describeRequest({
      method: request.method,
      routeKey: key,
      params: request.params,
      query: request.query,
      body: request.body,
      ip: request.ip,
      status: reply.statusCode,
      caller: request.caller,
      actor: request.auditActor,
      payload,
    });
    try {
      await audit.record(event, fields);
      return payload;
    } catch {
      if (!changesNothing(request.method, key)) return payload;
      void reply.status(503).header('content-type', 'application/json; charset=utf-8');
      reply.removeHeader('jwt-token');
      return UNAVAILABLE;
    }
  });
}
