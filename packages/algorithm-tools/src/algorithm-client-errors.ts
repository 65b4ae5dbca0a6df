/** How the algorithm client reports failures: the hooks `@federa/client` replaces and this package's error classes. */

/** What a refused request was (status of the answer, the server's message and its body). */
export interface ProxyRefusal {
  readonly status: number;
  readonly method: string;
  readonly path: string;
  /** `msg` (or `message`) of the answer, else its text. */
  readonly serverMessage: string;
  /** The parsed JSON body, or `null`. */
  readonly body: unknown;
}

/**
 * How failures are reported. The defaults throw the error classes below; `@federa/client` passes its own
 * (FederaApiError, ConnectionError, WaitTimeoutError, FederaClientError).
 */
export interface AlgorithmClientErrors {
  /** The proxy (or the server behind it) answered with a status above 210. */
  refused(refusal: ProxyRefusal): Error;
  /** The proxy could not be reached, or did not answer in time. */
  unreachable(host: string, port: number, reason: string, cause: unknown): Error;
  /** A sub-task did not complete in time. */
  timeout(taskId: number, timeoutMs: number): Error;
  /** The environment or the token is not what a node gives a container. */
  invalid(message: string, cause?: unknown): Error;
}

/** Base class of the errors of this client. */
export class AlgorithmClientError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The proxy refused a request. */
export class ProxyRequestError extends AlgorithmClientError implements ProxyRefusal {
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly serverMessage: string;
  readonly body: unknown;

  constructor(refusal: ProxyRefusal) {
    super(`${refusal.method} ${refusal.path} answered ${refusal.status}: ${refusal.serverMessage}`);
    ({
      status: this.status,
      method: this.method,
      path: this.path,
      serverMessage: this.serverMessage,
      body: this.body,
    } = refusal);
  }
}

export class ProxyUnreachableError extends AlgorithmClientError {
  constructor(
    readonly host: string,
    readonly port: number,
    reason: string,
    cause: unknown,
  ) {
    super(`Could not reach the node's proxy at ${host}:${port} (${reason}).`, { cause });
  }
}

export class SubTaskTimeoutError extends AlgorithmClientError {
  constructor(
    readonly taskId: number,
    readonly timeoutMs: number,
  ) {
    super(`Sub-task ${taskId} did not complete within ${timeoutMs} ms.`);
  }
}

export const DEFAULT_ERRORS: AlgorithmClientErrors = {
  refused: (r) => new ProxyRequestError(r),
  unreachable: (host, port, reason, cause) => new ProxyUnreachableError(host, port, reason, cause),
  timeout: (taskId, ms) => new SubTaskTimeoutError(taskId, ms),
  invalid: (message, cause) => new AlgorithmClientError(message, { cause }),
};
