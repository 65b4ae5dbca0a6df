/**
 * Typed errors of the container runtime. Every error carries the operation that failed, a context object
 * (names, image references; never credentials) and the underlying `cause` (the engine's error) when any.
 */

export type RuntimeErrorContext = Readonly<Record<string, string | number | boolean | undefined>>;

export interface RuntimeErrorOptions {
  readonly context?: RuntimeErrorContext;
  readonly cause?: unknown;
}

export class ContainerRuntimeError extends Error {
  readonly operation: string;
  readonly context: RuntimeErrorContext;

  constructor(operation: string, message: string, options: RuntimeErrorOptions = {}) {
    super(`${operation}: ${message}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.operation = operation;
    this.context = options.context ?? {};
  }
}

/** The container engine cannot be reached (socket missing, daemon stopped). */
export class RuntimeUnavailableError extends ContainerRuntimeError {}

/** A container, network, volume or image that the operation needs does not exist. */
export class RuntimeNotFoundError extends ContainerRuntimeError {}

/** An image could neither be found locally nor pulled. */
export class ImageUnavailableError extends ContainerRuntimeError {}

/** An image reference the engine cannot parse (refused before it reaches the engine). */
export class InvalidReferenceError extends ContainerRuntimeError {}

/** A registry refused the credentials or could not be reached. */
export class RegistryError extends ContainerRuntimeError {}

/** An operation did not finish in time (e.g. waiting for a container to exit). */
export class RuntimeTimeoutError extends ContainerRuntimeError {}

/** HTTP status code of an engine error (dockerode/docker-modem put it in `statusCode`). */
export function engineStatusCode(err: unknown): number | undefined {
  if (typeof err === 'object' && err !== null && 'statusCode' in err) {
    const code = (err as { statusCode: unknown }).statusCode;
    return typeof code === 'number' ? code : undefined;
  }
  return undefined;
}

/** Error code of a socket-level failure (ENOENT, ECONNREFUSED, ...). */
export function socketErrorCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const code = (err as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/** The engine's own message (its JSON `message`), else the error's message. */
export function engineMessage(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const json = (err as { json?: unknown }).json;
    if (typeof json === 'object' && json !== null && 'message' in json) {
      const msg = (json as { message: unknown }).message;
      if (typeof msg === 'string') return msg;
    }
    if (err instanceof Error) return err.message;
  }
  return String(err);
}
