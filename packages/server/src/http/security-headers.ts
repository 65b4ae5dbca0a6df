import type { FastifyInstance } from 'fastify';

/**
 * The security headers of every answer (docs/security.md). The API's JSON is never a page: nothing may load or
 * frame it. `/apidocs` (and `/v4/apidocs`) is a page whose scripts and styles all come from the server itself.
 */
export function securityHeaders(url: string, apiPath: string): Record<string, string> {
  const page =
    (url.startsWith('/apidocs') || url.startsWith('/v4/apidocs')) && !url.startsWith(`${apiPath}/`);
  return {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'strict-transport-security': 'max-age=31536000',
    'x-permitted-cross-domain-policies': 'none',
    'content-security-policy': page
      ? "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
      : "default-src 'none'; frame-ancestors 'none'",
  };
}

/** Adds {@link securityHeaders} to every answer that does not set them itself. */
export function addSecurityHeaders(app: FastifyInstance, apiPath: string): void {
  app.addHook('onSend', async (request, reply) => {
    for (const [name, value] of Object.entries(securityHeaders(request.url, apiPath)))
      if (!reply.hasHeader(name)) void reply.header(name, value);
  });
}
