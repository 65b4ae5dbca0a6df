# The HTTP layer of Client: one request, the server's error answers turned into Federa conditions, paging.
# Tokens travel only in the Authorization header; nothing here puts a request body or a header into a message.

server_text <- function(body) {
  if (!is.list(body)) return(NULL)
  msg <- body$msg
  message <- body$message
  if (is.list(message) && length(message)) {
    fields <- paste(names(message), vapply(message, function(v) paste(unlist(v), collapse = ", "), ""),
                    sep = ": ", collapse = "; ")
    return(if (is.character(msg) && length(msg) == 1L && nzchar(msg)) sprintf("%s (%s)", msg, fields) else fields)
  }
  if (is.character(msg) && length(msg) == 1L && nzchar(msg)) return(msg)
  if (is.character(message) && length(message) == 1L && nzchar(message)) return(message)
  NULL
}

response_body <- function(response) {
  raw <- httr::content(response, as = "raw")
  if (!length(raw)) return(NULL)
  text <- rawToChar(raw)
  Encoding(text) <- "UTF-8"
  tryCatch(jsonlite::fromJSON(text, simplifyVector = FALSE), error = function(e) NULL)
}

# Expand vectors into repeated query parameters; drop NULL and FALSE; TRUE becomes "true".
query_params <- function(params) {
  out <- list()
  for (name in names(params)) {
    value <- params[[name]]
    if (is.null(value) || isFALSE(value)) next
    if (isTRUE(value)) value <- "true"
    for (v in as.list(value)) out <- c(out, stats::setNames(list(as.character(v)), name))
  }
  out
}

raise_for <- function(method, endpoint, response) {
  status <- httr::status_code(response)
  body <- response_body(response)
  text <- server_text(body)
  code <- if (is.list(body) && is.character(body$code)) body$code else NULL
  where <- paste(method, endpoint)
  said <- if (!is.null(text)) paste0(": ", text) else ""
  fail <- function(kind, message) federa_stop(kind, message, status = status, server_message = text, code = code)
  if (status %in% c(400L, 413L)) fail("validation_error", sprintf("the server refused %s%s", where, said))
  if (status == 401L) {
    lowered <- tolower(if (is.null(text)) "" else text)
    if (identical(code, "missing_authorization") || grepl("missing authorization", lowered, fixed = TRUE)) {
      fail("authentication_error", sprintf("not logged in: %s needs authentication; call authenticate() first", where))
    }
    if (isTRUE(code %in% c("token_expired", "identity_missing", "invalid_credentials")) ||
        grepl("expired", lowered, fixed = TRUE)) {
      fail("authentication_error", sprintf("the session is no longer valid for %s%s; log in again", where, said))
    }
    fail("permission_denied", sprintf("permission denied for %s%s", where, said))
  }
  if (status == 403L) fail("permission_denied", sprintf("permission denied for %s%s", where, said))
  if (status == 422L) fail("authentication_error", sprintf("the server rejected the session token for %s%s; log in again", where, said))
  if (status == 404L) fail("not_found", sprintf("not found: %s%s", where, said))
  if (status >= 500L) fail("server_error", sprintf("the server failed on %s (HTTP %d)%s", where, status, said))
  fail("error", sprintf("%s failed with HTTP %d%s", where, status, said))
}

http_send <- function(method, url, query = NULL, body = NULL, token = NULL, timeout = 30, endpoint = url) {
  headers <- c(Accept = "application/json")
  if (!is.null(token)) headers <- c(headers, Authorization = paste("Bearer", token))
  args <- list(verb = method, url = url, httr::add_headers(.headers = headers), httr::timeout(timeout))
  if (length(query)) args$query <- query
  if (!is.null(body)) {
    args$body <- json_text(body)
    args <- c(args, list(httr::content_type_json()))
  }
  tryCatch(do.call(httr::VERB, args), error = function(e) {
    host <- sub("^(https?://[^/]+).*$", "\\1", url)
    if (grepl("timed out|Timeout", conditionMessage(e))) {
      federa_stop("connection_failed", sprintf("the server at %s did not answer %s %s within %s seconds",
                                               host, method, endpoint, timeout))
    }
    # `refused`: the request cannot have reached the server (the connection was never made).
    federa_stop("connection_failed", sprintf(
      "cannot connect to the Federa server at %s; is the server running and are host and port right?", host),
      refused = grepl("Failed to connect|Couldn't connect|Connection refused", conditionMessage(e)))
  })
}

json_of <- function(response, method, endpoint) {
  raw <- httr::content(response, as = "raw")
  if (!length(raw)) return(NULL)
  text <- rawToChar(raw)
  Encoding(text) <- "UTF-8"
  tryCatch(jsonlite::fromJSON(text, simplifyVector = FALSE), error = function(e) {
    federa_stop("server_error", sprintf(paste0(
      "%s %s answered HTTP %d with something that is not JSON; is this the API of a Federa server ",
      "(check host, port and api_path)?"), method, endpoint, httr::status_code(response)),
      status = httr::status_code(response))
  })
}

as_id <- function(value, what = "id") {
  if (is.list(value)) value <- value$id
  if (is.null(value) || length(value) != 1L || is.logical(value) || is.na(suppressWarnings(as.integer(value)))) {
    stop(federa_condition("validation_error", sprintf("%s must be one integer id", what)))
  }
  as.integer(value)
}

as_ids <- function(values, what) {
  if (is.null(values)) return(NULL)
  if (is.list(values) && !is.null(values$id)) values <- list(values)
  lapply(as.list(values), as_id, what = what)
}

drop_null <- function(x) x[!vapply(x, is.null, logical(1))]
