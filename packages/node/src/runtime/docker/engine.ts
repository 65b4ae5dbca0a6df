/**
 * The Docker engine as the runtime's parts call it: every call's failure becomes a typed runtime error ("engine not
 * reachable", "not found", anything else), carrying the operation and its context.
 */
import type Docker from 'dockerode';

import type { RuntimeLogger } from '../container-runtime.js';
import {
  ContainerRuntimeError,
  RuntimeNotFoundError,
  RuntimeUnavailableError,
  engineMessage,
  engineStatusCode,
  socketErrorCode,
  type RuntimeErrorContext,
} from '../errors.js';

const SOCKET_DOWN_CODES = new Set(['ENOENT', 'ECONNREFUSED', 'EACCES', 'ECONNRESET', 'EPIPE']);

/** The socket to the engine failed (daemon stopped, socket missing or not ours). */
export function isSocketDown(err: unknown): boolean {
  const code = socketErrorCode(err);
  return code !== undefined && SOCKET_DOWN_CODES.has(code);
}

/** The error for an engine that does not answer, when a caller handles every other failure itself. */
export function engineDown(
  operation: string,
  context: RuntimeErrorContext,
  cause: unknown,
): RuntimeUnavailableError {
  return new RuntimeUnavailableError(operation, 'the container engine does not answer', { context, cause });
}

/** How the engine is named in errors, and what to do when it does not answer. */
export interface EngineLabel {
  readonly name: string;
  readonly hint: string;
}

export const DOCKER_ENGINE: EngineLabel = {
  name: 'the Docker engine',
  hint: 'is dockerd running? (scripts/docker-engine.sh)',
};

export class Engine {
  readonly docker: Docker;
  readonly logger: RuntimeLogger | undefined;
  readonly label: EngineLabel;

  constructor(docker: Docker, logger: RuntimeLogger | undefined, label: EngineLabel = DOCKER_ENGINE) {
    this.docker = docker;
    this.logger = logger;
    this.label = label;
  }

  /** Run an engine call; translate "engine not reachable" and unexpected failures into typed errors. */
  async call<T>(operation: string, context: RuntimeErrorContext, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ContainerRuntimeError) throw err;
      if (isSocketDown(err)) {
        throw new RuntimeUnavailableError(
          operation,
          `${this.label.name} does not answer (${socketErrorCode(err)}); ${this.label.hint}`,
          { context, cause: err },
        );
      }
      const status = engineStatusCode(err);
      if (status === 404)
        throw new RuntimeNotFoundError(operation, engineMessage(err), { context, cause: err });
      throw new ContainerRuntimeError(operation, engineMessage(err), { context, cause: err });
    }
  }

  /** Like call, but "not found" (404) gives `undefined`. */
  async maybe<T>(
    operation: string,
    context: RuntimeErrorContext,
    fn: () => Promise<T>,
  ): Promise<T | undefined> {
    try {
      return await this.call(operation, context, fn);
    } catch (err) {
      if (err instanceof RuntimeNotFoundError) return undefined;
      throw err;
    }
  }
}
