/**
 * Every error the client raises. API refusals are {@link FederaApiError} (or one of its subclasses, chosen
 * from the HTTP status and the server's error code); a server that cannot be reached is a
 * {@link ConnectionError}; encryption problems are the common package's `EncryptionError`.
 *
 * Messages name what happened and what to do next. They never contain a password or a token.
 */
import type { ErrorCode } from '@federa/common';

export { EncryptionError, type EncryptionErrorReason, type ErrorCode } from '@federa/common';

/**
 * The `code` of an error answer: one of the server's table (docs/errors.md), or another string from a newer
 * server.
 */
export type ServerErrorCode = ErrorCode | (string & {});

/** The base class of the client's own errors (not of `EncryptionError`, which comes from `@federa/common`). */
export class FederaClientError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** What {@link FederaApiError} knows about the request that was refused. */
export interface ApiErrorDetails {
  /** HTTP status of the answer. */
  status: number;
  /** The server's error code (`forbidden`, `not_found`, …) when it sends one; `null` for a vantage6 server. */
  code: ServerErrorCode | null;
  /** The server's human-readable message (`msg`), or a description of the answer when it had none. */
  serverMessage: string;
  /** HTTP method of the request. */
  method: string;
  /** Path of the request, without host and query string (e.g. `/api/task/3`). */
  path: string;
  /** Per-field messages of a validation error (`{"message": {field: text}}`), when the server sent them. */
  fields?: Record<string, string>;
}

/** The server answered with an error status. `status`, `code` and `serverMessage` say which. */
export class FederaApiError extends FederaClientError {
  /** HTTP status of the answer. */
  readonly status: number;
  /** The server's error code, or `null` when the server sent none. */
  readonly code: ServerErrorCode | null;
  /** The server's message (`msg`). */
  readonly serverMessage: string;
  /** HTTP method of the refused request. */
  readonly method: string;
  /** Path of the refused request. */
  readonly path: string;
  /** Per-field validation messages, if any. */
  readonly fields: Record<string, string> | undefined;

  constructor(details: ApiErrorDetails, message?: string, options?: { cause?: unknown }) {
    super(
      message ?? `${details.method} ${details.path} failed with ${details.status}: ${details.serverMessage}`,
      options,
    );
    this.status = details.status;
    this.code = details.code;
    this.serverMessage = details.serverMessage;
    this.method = details.method;
    this.path = details.path;
    this.fields = details.fields;
  }
}

/**
 * Logging in failed (wrong username or password, locked account), the session expired and could not be
 * refreshed, or the client was used before {@link UserClient.authenticate}.
 */
export class AuthenticationError extends FederaApiError {}

/** The caller lacks the permission (rule) the operation needs; the server answers 401 for this. */
export class PermissionError extends FederaApiError {}

/** The resource (or endpoint) does not exist: 404. */
export class NotFoundError extends FederaApiError {}

/** The server refused the input: 400 (a missing or invalid field, a name in use, a refused operation). */
export class ValidationError extends FederaApiError {}

/** The server could not be reached: nothing listening, DNS failure, connection reset or a timeout. */
export class ConnectionError extends FederaClientError {
  /** The host the client tried (as configured, e.g. `http://localhost`). */
  readonly host: string;
  /** The port the client tried. */
  readonly port: number;

  constructor(host: string, port: number, reason: string, options?: { cause?: unknown }) {
    super(
      `Could not reach the Federa server at ${host}:${port} (${reason}). ` +
        'Check that the server is running and that host and port are right.',
      options,
    );
    this.host = host;
    this.port = port;
  }
}

/** {@link UserClient.waitForResults} or {@link AlgorithmClient.waitForResults} ran out of time. */
export class WaitTimeoutError extends FederaClientError {
  /** The task that did not complete in time. */
  readonly taskId: number;
  /** How long the client waited, in milliseconds. */
  readonly timeoutMs: number;

  constructor(taskId: number, timeoutMs: number) {
    super(
      `Task ${taskId} did not complete within ${timeoutMs} ms. ` +
        'Wait again with a longer timeoutMs, or check the nodes of its organizations (are they online?).',
    );
    this.taskId = taskId;
    this.timeoutMs = timeoutMs;
  }
}

/** How much of a failed run's log {@link TaskFailedError} quotes (the last characters). */
export const LOG_TAIL_CHARS = 1500;

/** The last {@link LOG_TAIL_CHARS} characters of a run's log (`''` when there is none). */
export function logTail(log: string | null | undefined, limit = LOG_TAIL_CHARS): string {
  const text = (log ?? '').trimEnd();
  return text.length <= limit ? text : `...${text.slice(-limit)}`;
}

/** What {@link TaskFailedError} says about one run that did not complete. */
export interface FailedRun {
  /** The result (run) id. */
  readonly id: number;
  readonly organizationId: number;
  /** Its status (`crashed`, `failed`, `not allowed`, …), or `null` from a server that reports none. */
  readonly status: string | null;
  /** The tail of its log. */
  readonly logTail: string;
}

/**
 * {@link UserClient.waitForResults}: the task completed, but some of its runs did not succeed. `results` holds
 * every run (so the outputs of those that did succeed are not lost), `failed` the runs that did not.
 */
export class TaskFailedError extends FederaClientError {
  readonly taskId: number;
  readonly failed: readonly FailedRun[];
  readonly results: readonly unknown[];

  constructor(taskId: number, failed: readonly FailedRun[], results: readonly unknown[]) {
    const lines = failed.map(
      (run) =>
        `run ${run.id} (organization ${run.organizationId}): ${run.status ?? 'finished without output'}` +
        (run.logTail ? `; log tail:\n${run.logTail}` : '; no log'),
    );
    super(
      `Task ${taskId} did not succeed: ${failed.length} of ${results.length} run(s) failed\n${lines.join('\n')}`,
    );
    this.taskId = taskId;
    this.failed = failed;
    this.results = results;
  }
}

/** Server error codes that mean "you lack a permission" rather than "who are you?". */
const PERMISSION_CODES = new Set<ServerErrorCode>(['forbidden', 'wrong_caller'] satisfies ErrorCode[]);

/** vantage6 messages (no `code`) of a 401 that is about the token, not about a rule. */
const AUTH_MESSAGE = /missing authorization header|token has expired|error loading the user/i;

/** True when a 401 answer means the access token expired (the only case a refresh can fix). */
export function isExpiredToken(status: number, code: ServerErrorCode | null, serverMessage: string): boolean {
  return status === 401 && (code === 'token_expired' || /token has expired/i.test(serverMessage));
}

/**
 * Builds the error class matching an error answer. A 401 is a {@link PermissionError} when the server's code
 * (or, for servers without codes, its message) says a rule was missing, else an {@link AuthenticationError};
 * a 422 (bad token) is an {@link AuthenticationError}.
 */
export function apiErrorFor(details: ApiErrorDetails): FederaApiError {
  const { status, code, serverMessage } = details;
  if (status === 401) {
    const permission = code !== null ? PERMISSION_CODES.has(code) : !AUTH_MESSAGE.test(serverMessage);
    return permission ? new PermissionError(details) : new AuthenticationError(details);
  }
  if (status === 422) return new AuthenticationError(details);
  if (status === 404) return new NotFoundError(details);
  if (status === 400) return new ValidationError(details);
  return new FederaApiError(details);
}
