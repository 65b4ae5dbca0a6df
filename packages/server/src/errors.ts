/**
 * API errors: the one table of error codes lives in `@federa/common` (so clients can type `code`); handlers throw
 * {@link ApiError} with a code and (optionally) a more specific public message.
 */
import { ERROR_CODES, type ErrorCode } from '@federa/common';

export { ERROR_CODES, INTERNAL_ERROR_MESSAGE, type ErrorCode } from '@federa/common';

/** An error whose message is safe to show to the caller. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra public fields merged into the body (e.g. `message: {field: text}` for validation errors). */
  readonly extra: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message?: string,
    options?: { cause?: unknown; extra?: Record<string, unknown> },
  ) {
    super(
      message ?? ERROR_CODES[code].description,
      options?.cause !== undefined ? { cause: options.cause } : {},
    );
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.extra = options?.extra;
  }
}

export const notFound = (kind: string, id: number | string): ApiError =>
  new ApiError('not_found', `${kind} with id=${id} not found`);

export const forbidden = (message: string): ApiError => new ApiError('forbidden', message);

export const badRequest = (message: string): ApiError => new ApiError('bad_request', message);
