import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { ApiError, ERROR_CODES, INTERNAL_ERROR_MESSAGE, type ErrorCode } from '../errors.js';
import type { AppContext } from '../context.js';
import { isConnectionError, isDiskFull, isPoolBusy } from '../db/renewable-pool.js';
import { isUniqueViolation } from '../db/violations.js';

/**
 * The public texts of the refusals the handler gives for errors that are not an {@link ApiError}, where a more
 * specific sentence than the error table's description helps the caller; their codes and statuses are the table's.
 */
const MESSAGES = {
  notJson: 'Send the request body as JSON (Content-Type: application/json).',
  poolBusy: 'The server is busy: no database connection came free in time; retry later.',
  diskFull: 'The database cannot store more data at the moment; retry later.',
  databaseDown: 'The database is unreachable at the moment; retry later.',
  unique:
    'This would repeat a value that must be unique, such as a name, and is taken already; the request was refused.',
  bodyTooLarge: (bytes: number) => `The request body is larger than ${bytes} bytes.`,
} as const;

/** Answers `{msg, code, ...extra}` with the status the error table gives `code`. */
function refuse(
  reply: FastifyReply,
  code: ErrorCode,
  msg: string = ERROR_CODES[code].description,
  extra: Record<string, unknown> = {},
): FastifyReply {
  return reply.status(ERROR_CODES[code].status).send({ msg, code, ...extra });
}

/** First offending field of a validation error, as a dotted name. */
function validationField(error: FastifyError): string {
  const v = error.validation?.[0];
  if (!v) return 'body';
  const params = v.params as { missingProperty?: string; additionalProperty?: string } | undefined;
  // A field that is missing, or one the body must not have, is named itself rather than the object holding it.
  const named = params?.missingProperty ?? params?.additionalProperty;
  const path = (v.instancePath || '').replace(/^\//, '').replace(/\//g, '.');
  const field = [path, named].filter(Boolean).join('.');
  return field || error.validationContext || 'body';
}

/**
 * Every error a route or Fastify throws becomes an answer from the one error table (errors.ts): a refusal names
 * what was wrong; a database that is busy or unreachable is a 503 to retry; anything else is logged and answered
 * with the fixed 500 text, so no SQL, stack trace or path reaches the caller.
 */
export function answerErrors(app: FastifyInstance, ctx: AppContext): void {
  const retryAfter = String(ctx.config.database.retry_after_seconds);
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    const databaseFault = (cause: unknown): boolean => isConnectionError(cause) || isDiskFull(cause);
    if (error instanceof ApiError && !(error.status === 500 && databaseFault(error.cause))) {
      if (error.status >= 500) request.log.error({ err: error.cause ?? error }, error.message);
      // 500 answers carry only the fixed text; 501/503 messages come from the routes and are public.
      const body =
        error.status === 500
          ? { msg: INTERNAL_ERROR_MESSAGE, code: error.code }
          : { msg: error.message, code: error.code, ...error.extra };
      return reply.status(error.status).send(body);
    }
    const fe = error as FastifyError;
    if (fe.validation) {
      const field = validationField(fe);
      const detail = fe.validation[0]?.message ?? 'is invalid';
      const keyword = fe.validation[0]?.keyword;
      const text =
        keyword === 'required'
          ? 'is required'
          : keyword === 'additionalProperties'
            ? 'is not a known field'
            : detail;
      const where =
        fe.validationContext === 'querystring'
          ? 'query parameter'
          : fe.validationContext === 'params'
            ? 'path parameter'
            : 'field';
      return refuse(reply, 'validation_failed', `${where} '${field}' ${text}`, {
        message: { [field]: text },
      });
    }
    if (
      fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
      error instanceof SyntaxError
    ) {
      return refuse(reply, 'malformed_json', undefined, { message: ERROR_CODES.malformed_json.description });
    }
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const limit = request.routeOptions.bodyLimit ?? ctx.config.body_limit_bytes;
      return refuse(reply, 'payload_too_large', MESSAGES.bodyTooLarge(limit));
    }
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return refuse(reply, 'bad_request', MESSAGES.notJson);
    if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
      // Fastify's own 4xx (a bad header, an unsupported encoding): its text, without any path it may name.
      return reply
        .status(fe.statusCode)
        .send({ msg: fe.message.replace(/\/[^\s]*\//g, ''), code: 'bad_request' });
    }
    if (isPoolBusy(error)) {
      // Every database connection stayed busy for connect_timeout_ms: the server is saturated (docs/reliability.md).
      request.log.warn(
        { event: 'db.pool_busy', url: request.url, method: request.method },
        'no database connection came free in time',
      );
      void reply.header('Retry-After', retryAfter);
      return refuse(reply, 'unavailable', MESSAGES.poolBusy);
    }
    if (isDiskFull(error instanceof ApiError ? error.cause : error)) {
      // Nothing was written; the write may succeed once space is freed. The operator must act: logged as an error.
      request.log.error(
        { event: 'db.disk_full', url: request.url, method: request.method },
        'the database could not store a write: its disk is full',
      );
      void reply.header('Retry-After', retryAfter);
      return refuse(reply, 'unavailable', MESSAGES.diskFull);
    }
    if (isConnectionError(error instanceof ApiError ? error.cause : error)) {
      // The database is unreachable (refused, reset or silent connection): callers retry (docs/reliability.md).
      request.log.warn(
        {
          event: 'db.unavailable',
          url: request.url,
          method: request.method,
          err: { message: error.message },
        },
        'the database is unreachable',
      );
      void reply.header('Retry-After', retryAfter);
      return refuse(reply, 'unavailable', MESSAGES.databaseDown);
    }
    if (isUniqueViolation(error instanceof ApiError ? error.cause : error)) {
      // A write the database refused because a value it holds once (a name) is taken, by another write or by
      // another request at the same moment, on a route that does not name the value itself: the request conflicts
      // with what is there; the server is not at fault. The constraint's name stays in the log.
      request.log.warn(
        {
          event: 'db.unique_violation',
          url: request.url,
          method: request.method,
          err: { message: error.message },
        },
        'a write would repeat a unique value',
      );
      return refuse(reply, 'conflict', MESSAGES.unique);
    }
    request.log.error({ err: error, url: request.url, method: request.method }, 'unhandled error');
    return refuse(reply, 'internal', INTERNAL_ERROR_MESSAGE);
  });
}
