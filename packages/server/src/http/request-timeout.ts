/**
 * Time-outs of requests (docs/security.md, docs/large-results.md). Every route must have received its whole request
 * (headers and body) within `http.request_timeout_ms`, or it is answered 408 and its connection closed. The upload and
 * download of a large output (`/result/{id}/output`) are bounded by an idle time instead
 * (`http.output_idle_timeout_ms`): they may last as long as the link needs, as long as bytes keep moving.
 */
import type { FastifyInstance } from 'fastify';

const ANSWER_408 = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

export interface RequestTimeouts {
  requestMs: number;
  outputIdleMs: number;
  /** Route URLs (as Fastify names them) bounded by the idle time. */
  idleRoutes: ReadonlySet<string>;
}

export function addRequestTimeouts(app: FastifyInstance, t: RequestTimeouts): void {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (t.idleRoutes.has(request.routeOptions.url ?? '')) {
      // No bytes in either direction for this long: Node's server destroys the socket (the upload then fails and
      // stores nothing; the download stops). After the answer the server's keep-alive time-out takes over.
      raw.socket.setTimeout(t.outputIdleMs);
      done();
      return;
    }
    if (raw.complete) {
      done();
      return;
    }
    const timer = setTimeout(() => {
      if (raw.complete) return;
      request.log.info(
        { event: 'http.request_timeout', url: raw.url },
        'the request did not arrive in time; 408',
      );
      const socket = raw.socket;
      if (!reply.raw.headersSent && socket.writable) socket.end(ANSWER_408, () => socket.destroy());
      else socket.destroy();
    }, t.requestMs);
    timer.unref();
    const clear = (): void => clearTimeout(timer);
    raw.once('end', clear);
    raw.once('close', clear);
    reply.raw.once('close', clear);
    done();
  });
}
