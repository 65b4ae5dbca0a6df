import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

/** One structured line per request at debug level; the hook is only installed when debug logging is on. */
export function logRequests(app: FastifyInstance, logger: FastifyBaseLogger | undefined): void {
  if (logger?.level !== 'debug' && logger?.level !== 'trace') return;
  app.addHook('onResponse', async (request, reply) => {
    request.log.debug(
      {
        event: 'http.request',
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
  });
}
