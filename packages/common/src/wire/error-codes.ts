/**
 * The one table of API error codes.
 *
 * Every refusal the API gives has a code here, with its HTTP status and a public description. Handlers throw
 * the server's `ApiError` with a code and (optionally) a more specific public message; the error handler answers
 * `{"msg": <message>, "code": <code>}`. Server-side failures (5xx) always answer with the table's fixed text:
 * details (SQL, stack traces, paths) are logged, never sent.
 *
 * `docs/errors.md` is generated from this table (`npm run docs`) and a test checks it is current. Clients type the
 * `code` of an error answer with {@link ErrorCode}.
 */
export const ERROR_CODES = {
  bad_request: { status: 400, description: 'The request is malformed or a field has an invalid value.' },
  validation_failed: {
    status: 400,
    description: 'A field is missing or has the wrong type; the field is named.',
  },
  malformed_json: { status: 400, description: 'The request body is not valid JSON.' },
  conflict: {
    status: 400,
    description: 'The request conflicts with existing data (a name or e-mail in use).',
  },
  not_allowed_input: {
    status: 400,
    description: 'The operation is refused for this input (see the message).',
  },
  checksum_mismatch: {
    status: 400,
    description:
      'The uploaded bytes do not match the checksum sent with them; nothing was stored. Upload again.',
  },
  image_not_pinned: {
    status: 400,
    description: "The algorithm's image has no digest (image@sha256:…); a store approves only pinned images.",
  },
  invalid_argument: {
    status: 400,
    description:
      "A task argument does not fit the store's description of the function; the argument is named.",
  },
  review_refused: {
    status: 400,
    description: "The store's review policy refuses this step (see the message).",
  },
  password_policy: { status: 400, description: 'The password does not meet the password policy.' },
  current_password_required: {
    status: 400,
    description: 'Changing your own e-mail address needs your current password in `current_password`.',
  },
  current_password_wrong: {
    status: 400,
    description: 'The `current_password` given is not your current password.',
  },
  root_protected: {
    status: 400,
    description: 'The root account cannot be renamed or deleted (the server would recreate it).',
  },
  missing_authorization: { status: 401, description: 'The Authorization header is missing.' },
  token_expired: { status: 401, description: 'The token has expired; refresh it or log in again.' },
  invalid_credentials: { status: 401, description: 'Unknown user or wrong password.' },
  account_locked: {
    status: 401,
    description:
      'Too many wrong passwords from your address (the account is locked for it for a while), or from many addresses (checks from a new address are slowed).',
  },
  address_throttled: {
    status: 401,
    description: 'Too many failed logins from this address; wait and retry.',
  },
  session_ended: {
    status: 401,
    description:
      "The token's session has ended (password changed or reset, API key reset, refresh token reused, maximum lifetime reached) or, for a container, its run has; log in again.",
  },
  refresh_reused: {
    status: 401,
    description: 'The refresh token was already used; its session has ended. Log in again.',
  },
  identity_missing: { status: 401, description: 'The user or node the token belongs to no longer exists.' },
  forbidden: { status: 401, description: 'You lack the permission (rule) this operation needs.' },
  wrong_caller: { status: 401, description: 'This endpoint is not available to this kind of caller.' },
  invalid_token: { status: 422, description: 'The token is malformed, badly signed or of the wrong type.' },
  not_found: { status: 404, description: 'The resource does not exist.' },
  route_not_found: { status: 404, description: 'No such endpoint.' },
  method_not_allowed: { status: 405, description: 'The method is not allowed for the requested URL.' },
  rate_limited: {
    status: 429,
    description:
      'Too many requests of this kind from this caller, or one is still being answered; retry after the seconds in `Retry-After`.',
  },
  run_closed: {
    status: 409,
    description:
      'The run has finished or was killed (its status is named): no output can be uploaded to it any more.',
  },
  metrics_refused: {
    status: 403,
    description:
      'The metrics endpoint answers only the loopback address, or a caller with the bearer token its configuration names.',
  },
  payload_too_large: { status: 413, description: 'The request body is larger than the server accepts.' },
  not_configured: { status: 501, description: 'The feature is not configured on this server.' },
  result_store_full: {
    status: 507,
    description:
      "The server's result store has no room left: the upload was discarded. Retry later; the administrator must free space.",
  },
  result_store_quota: {
    status: 507,
    description:
      'The upload would pass a quota of the result store (per node or in total, named in the message): it was discarded. Retry once outputs were removed (tasks deleted).',
  },
  unavailable: { status: 503, description: 'A service the server depends on is unavailable.' },
  store_unreachable: {
    status: 503,
    description: 'The algorithm store, or the server a store asks who the caller is, cannot be reached now.',
  },
  audit_unavailable: {
    status: 503,
    description:
      'The audit log cannot be written at the moment, so nothing that would be recorded in it is done; retry later.',
  },
  internal: { status: 500, description: 'An internal error occurred. It has been logged.' },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The public text of a 5xx answer: one fixed sentence that reveals nothing. */
export const INTERNAL_ERROR_MESSAGE =
  'An internal server error occurred. The administrator can find details in the server log.';
