# Conditions raised by the client. Every one has the class "federa_error" and one of the classes below, so
# callers can use tryCatch(..., federa_not_found = function(e) ...). See docs/client-r.md ("Errors").
#
#   federa_authentication_error  wrong username or password, not logged in, session expired
#   federa_permission_denied     the server refused the operation for lack of a rule (401/403)
#   federa_not_found             HTTP 404
#   federa_validation_error      HTTP 400/413: the server refused the request's content
#   federa_server_error          HTTP 5xx, or an answer that is not the API
#   federa_connection_failed     no HTTP answer at all
#   federa_encryption_error      a key cannot be read, input cannot be encrypted, a result cannot be decrypted
#   federa_task_failed           a run of the task did not complete (its status and log are in the message)
#   federa_task_timeout          waiting for results gave up
#   federa_algorithm_error       the algorithm wrapper could not run the requested method
#
# Fields: status (HTTP status or NULL), server_message (the server's own text or NULL), code (Federa's error
# code or NULL). Messages never contain a password or a token.

#' Make a Federa condition object (not signalled).
#' @export
federa_condition <- function(kind, message, status = NULL, server_message = NULL, code = NULL, ...) {
  structure(
    class = c(paste0("federa_", kind), "federa_error", "error", "condition"),
    list(message = message, call = NULL, status = status, server_message = server_message, code = code, ...)
  )
}

federa_stop <- function(kind, message, ...) {
  stop(federa_condition(kind, message, ...))
}
