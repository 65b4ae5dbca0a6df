import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** Told of each request as it arrives: routed (`request.routeOptions` is known), before any hook runs. */
export type RequestArrival = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * Fastify's log controller, which Fastify calls for every request it routes, whatever hooks there are; Federa's own
 * request logging is logRequests (at debug level), so Fastify's lines stay off. The metrics and the tracing hear of
 * each request here rather than in an `onRequest` or `onResponse` hook: a hook costs every request Fastify's hook
 * runner, and the first `onResponse` hook also its listeners on the answer, several times what recording the
 * request itself costs (docs/performance.md).
 */
export class RequestLifecycle extends LogController {
  #arrival: RequestArrival | null = null;

  constructor() {
    super({ disableRequestLogging: true });
  }

  /** Adds a listener of arrivals (they run in the order they were added). */
  onArrival(listener: RequestArrival): void {
    const before = this.#arrival;
    this.#arrival = before
      ? (request, reply) => {
          before(request, reply);
          listener(request, reply);
        }
      : listener;
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    this.#arrival?.(request, reply);
  }
}
