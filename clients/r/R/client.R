#' A Federa user client (docs/client-r.md).
#'
#' The interface of vantage6's R package vtg (`Client$new`, `$authenticate`, `$getCollaborations`,
#' `$setCollaborationId`, `$set.task.image`, `$call`), plus management of organizations, users, roles, rules,
#' nodes, tasks and results, waiting for results, killing tasks and reading the runs' logs.
#'
#' @examples
#' \dontrun{
#' client <- federa::Client$new("http://localhost:5000", api_path = "/api")
#' client$authenticate("researcher", askpass::askpass())
#' client$setupEncryption("my-organization.pem")
#' client$setCollaborationId(1)
#' client$set.task.image("federa/average-r:local", task.name = "average")
#' client$call("partial_average", column = "age")
#' }
#' @export
Client <- R6::R6Class("Client",
  # Tasks, results and their outputs are in client-tasks.R; organizations, collaborations, users, roles, rules and
  # nodes in client-admin.R; the algorithm store in client-store.R.
  public = c(list(
    #' @field host scheme, host and port, e.g. "http://localhost:5000".
    host = NULL,
    #' @field api_path the server's API prefix, "/api" by default.
    api_path = NULL,
    #' @field verbose print short status messages (never a password or a token).
    verbose = FALSE,
    #' @field timeout seconds to wait for each HTTP answer.
    timeout = 30,
    #' @field whoami after authenticate(): list(id, username, organization_id).
    whoami = NULL,
    #' @field collaboration_id set by setCollaborationId().
    collaboration_id = NULL,
    #' @field collaboration the collaboration set by setCollaborationId() (as the server returns it).
    collaboration = NULL,
    #' @field organizations ids call() sends the task to (NULL: every member of the collaboration).
    organizations = NULL,
    #' @field image the algorithm image call() runs.
    image = NULL,
    #' @field task.name the name of the tasks call() creates.
    task.name = "",
    #' @field use.master.container call() runs the method as a master (one organization, gets a client).
    use.master.container = FALSE,
    #' @field database the data source label call() asks for.
    database = "default",
    #' @field task.timeout seconds call() waits for results.
    task.timeout = 600,

    #' @param host server address with port, e.g. "http://localhost:5000" (http:// is assumed without scheme).
    #' @param api_path the API prefix (server setting api_path).
    #' @param port optional port, appended to host when given (host "http://localhost", port 5000).
    initialize = function(host, api_path = "/api", port = NULL, verbose = FALSE, timeout = 30) {
      host <- sub("/+$", "", trimws(as.character(host)))
      if (!grepl("://", host, fixed = TRUE)) host <- paste0("http://", host)
      if (!is.null(port)) host <- paste0(host, ":", as.integer(port))
      path <- gsub("^/+|/+$", "", if (is.null(api_path)) "" else as.character(api_path))
      self$host <- host
      self$api_path <- if (nzchar(path)) paste0("/", path) else ""
      self$verbose <- isTRUE(verbose)
      self$timeout <- timeout
      invisible(self)
    },

    print = function(...) {
      who <- if (is.null(self$whoami)) "not logged in" else sprintf("user %s", self$whoami$username)
      cat(sprintf("<federa::Client %s%s, %s>\n", self$host, self$api_path, who))
      invisible(self)
    },

    log = function(...) {
      if (self$verbose) cat("[federa] ", ..., "\n", sep = "")
      invisible(NULL)
    },

    # ---------------------------------------------------------------- HTTP

    #' Send one API request; returns the decoded JSON (lists), or raises a Federa condition.
    #' When the access token has expired it is refreshed once and the request repeated once.
    request = function(method, endpoint, query = NULL, body = NULL, authenticated = TRUE) {
      method <- toupper(method)
      endpoint <- paste0("/", sub("^/+", "", endpoint))
      response <- private$respond(method, endpoint, query, body, authenticated)
      json_of(response, method, endpoint)
    },

    GET = function(endpoint, query = NULL) self$request("GET", endpoint, query = query),
    POST = function(endpoint, body = NULL) self$request("POST", endpoint, body = body),
    PATCH = function(endpoint, body = NULL) self$request("PATCH", endpoint, body = body),
    DELETE = function(endpoint, body = NULL) self$request("DELETE", endpoint, body = body),

    #' A paginated listing: every page unless page is given. The list has the attribute "total".
    collect = function(endpoint, filters = list(), page = NULL, per_page = NULL) {
      filters <- drop_null(filters)
      if (!is.null(page)) {
        response <- private$respond("GET", endpoint, query_params(c(filters, list(page = page, per_page = per_page))))
        items <- private$items(response, endpoint)
        attr(items, "total") <- suppressWarnings(as.integer(httr::headers(response)[["total-count"]]))
        return(items)
      }
      size <- if (is.null(per_page)) 100L else as.integer(per_page)
      out <- list()
      n <- 1L
      repeat {
        response <- private$respond("GET", endpoint, query_params(c(filters, list(page = n, per_page = size))))
        batch <- private$items(response, endpoint)
        total <- suppressWarnings(as.integer(httr::headers(response)[["total-count"]]))
        out <- c(out, batch)
        if (!length(batch) || length(batch) < size || (length(total) && !is.na(total) && length(out) >= total)) break
        n <- n + 1L
      }
      attr(out, "total") <- if (length(total) && !is.na(total)) total else length(out)
      out
    },

    # ---------------------------------------------------------------- authentication and encryption

    #' Log in. Keeps the tokens (never the password); returns whoami invisibly. A wrong username or password
    #' raises a federa_authentication_error with the server's message.
    authenticate = function(username, password, mfa_code = NULL) {
      self$log("Authenticating as ", username)
      body <- drop_null(list(username = username, password = password,
                             mfa_code = if (is.null(mfa_code)) NULL else as.character(mfa_code)))
      response <- http_send("POST", private$url("/token/user"), body = body, timeout = self$timeout,
                            endpoint = "/token/user")
      rm(body, password)
      status <- httr::status_code(response)
      data <- response_body(response)
      text <- server_text(data)
      if (status %in% c(400L, 401L)) {
        federa_stop("authentication_error", sprintf("login as '%s' failed%s", username,
                                                    if (is.null(text)) " (wrong username or password)" else paste0(": ", text)),
                    status = status, server_message = text, code = if (is.character(data$code)) data$code else NULL)
      }
      if (status != 200L) raise_for("POST", "/token/user", response)
      if (!is.list(data) || is.null(data$access_token)) {
        federa_stop("authentication_error", sprintf("login as '%s' gave no token%s%s", username,
                                                    if (is.null(text)) "" else paste0(": ", text),
                                                    " (two-factor authentication needs mfa_code =)"),
                    status = status, server_message = text)
      }
      private$set_tokens(data)
      me <- NULL
      if (is.character(data$user_url) && startsWith(data$user_url, paste0(self$api_path, "/"))) {
        me <- self$GET(substring(data$user_url, nchar(self$api_path) + 1L))
      }
      org <- if (is.list(me)) me$organization else NULL
      self$whoami <- list(
        id = if (is.list(me)) me$id else NULL,
        username = if (is.list(me) && !is.null(me$username)) me$username else username,
        organization_id = if (is.list(org)) org$id else org
      )
      self$log(sprintf("Logged in as %s (user %s, organization %s)", self$whoami$username,
                       format(self$whoami$id), format(self$whoami$organization_id)))
      invisible(self$whoami)
    },

    #' End the session on the server (POST /token/logout: its access and refresh tokens are refused afterwards)
    #' and forget the tokens. The tokens are forgotten in any case; returns TRUE invisibly when the server ended
    #' the session, FALSE (with a warning saying why) when it could not be reached or did not end it.
    logout = function() {
      token <- private$access_token
      private$access_token <- NULL
      private$refresh_token <- NULL
      self$whoami <- NULL
      if (is.null(token)) return(invisible(FALSE))
      response <- tryCatch(
        http_send("POST", private$url("/token/logout"), token = token, timeout = self$timeout,
                  endpoint = "/token/logout"),
        federa_error = function(e) e)
      reason <- if (inherits(response, "federa_error")) {
        paste0("the server could not be reached (", conditionMessage(response), ")")
      } else if (httr::status_code(response) == 200L) {
        NULL
      } else {
        text <- server_text(response_body(response))
        paste0("the server did not end the session (",
               if (length(text) && nzchar(text)) text else paste("HTTP", httr::status_code(response)), ")")
      }
      if (is.null(reason)) {
        self$log("Logged out: the server ended the session")
        return(invisible(TRUE))
      }
      warning("logged out locally: the tokens are forgotten, but ", reason, call. = FALSE)
      invisible(FALSE)
    },

    #' Set up end-to-end encryption with the organization's unencrypted PEM private key (NULL: only
    #' unencrypted collaborations).
    setupEncryption = function(path) {
      if (is.null(path)) {
        private$key <- NULL
        self$log("Encryption disabled: only unencrypted collaborations can be used")
        return(invisible(self))
      }
      private$key <- tryCatch(read_private_key(path), federa_error = function(e) {
        federa_stop("encryption_error", paste("cannot set up encryption:", conditionMessage(e)))
      })
      self$log("End-to-end encryption set up with the private key ", path)
      invisible(self)
    },

    #' vtg's name for setupEncryption().
    setPrivateKey = function(path) self$setupEncryption(path),

    #' The wire form (base64 of the PEM) of the public key of the key given to setupEncryption().
    publicKey = function() {
      if (is.null(private$key)) federa_stop("encryption_error", "no private key: call setupEncryption(path) first")
      public_key_base64(private$key)
    },

    #' Decrypt (or base64-decode) a task input or result string and read its JSON payload.
    decryptPayload = function(data, what = "the result") {
      if (is.null(data) || !nzchar(data)) return(NULL)
      encrypted <- grepl("$", data, fixed = TRUE)
      if (encrypted && is.null(private$key)) {
        federa_stop("encryption_error", sprintf(
          "%s is encrypted: call client$setupEncryption('<private key file of your organization>') first", what))
      }
      raw <- tryCatch(decrypt_string(data, if (encrypted) private$key else NULL), federa_error = function(e) {
        federa_stop("encryption_error", sprintf("cannot decrypt %s: %s", what, conditionMessage(e)))
      })
      deserialize_payload(raw, what)
    },

    # ---------------------------------------------------------------- vtg's task interface

    #' The collaborations of the logged-in user's organization: list of list(id, name, organizations).
    getCollaborations = function() {
      private$need_login()
      items <- self$collect(sprintf("/organization/%d/collaboration", as_id(self$whoami$organization_id)))
      lapply(items, function(c) {
        list(id = c$id, name = c$name, encrypted = isTRUE(c$encrypted),
             organizations = vapply(self$getCollaborationOrganizations(c$id), function(o) as.integer(o$id), 1L))
      })
    },

    setCollaborationId = function(collaboration_id) {
      self$collaboration_id <- as_id(collaboration_id, "collaboration_id")
      self$collaboration <- self$getCollaboration(self$collaboration_id)
      self$log(sprintf("Collaboration %d (%s, %s)", self$collaboration_id, self$collaboration$name,
                       if (isTRUE(self$collaboration$encrypted)) "encrypted" else "unencrypted"))
      invisible(self)
    },

    setOrganizations = function(organizations) {
      self$organizations <- if (is.null(organizations)) NULL else vapply(as_ids(organizations, "organization"), identity, 1L)
      invisible(self)
    },

    setUseMasterContainer = function(flag = TRUE) {
      self$use.master.container <- isTRUE(flag)
      invisible(self)
    },

    set.task.image = function(image, task.name = "") {
      self$image <- image
      self$task.name <- task.name
      invisible(self)
    },

    #' Run method at the organizations (unnamed arguments go to args, named ones to kwargs), wait, and return
    #' the decoded result of every organization (master container: the one result). A run that did not
    #' complete raises federa_task_failed with its status and log.
    call = function(method, ...) {
      if (is.null(self$collaboration_id)) federa_stop("validation_error", "call setCollaborationId(id) first")
      if (is.null(self$image)) federa_stop("validation_error", "call set.task.image(image, task.name) first")
      dots <- list(...)
      named <- if (is.null(names(dots))) rep(FALSE, length(dots)) else nzchar(names(dots))
      kwargs <- dots[named]
      if (!length(kwargs)) kwargs <- structure(list(), names = character(0))
      input <- list(method = method, args = unname(dots[!named]), kwargs = kwargs, output_format = "json")
      if (self$use.master.container) input$master <- TRUE
      organizations <- self$organizations
      if (is.null(organizations)) organizations <- vapply(self$getCollaborationOrganizations(self$collaboration_id),
                                                            function(o) as.integer(o$id), 1L)
      if (self$use.master.container) organizations <- organizations[1]
      task <- self$createTask(self$collaboration_id, organizations, name = self$task.name, image = self$image,
                              input = input, database = self$database)
      self$log(sprintf("Task %d created; waiting for its results", task$id))
      results <- self$waitForResults(task$id, timeout = self$task.timeout)
      failed <- Filter(function(r) !identical(r$status, "completed"), results)
      if (length(failed)) {
        details <- vapply(failed, function(r) sprintf("organization %s: %s%s", format(result_organization(r)),
                                                      r$status, log_tail(r$log)), "")
        federa_stop("task_failed", sprintf("task %d: %d of %d run(s) did not complete\n  %s", task$id,
                                           length(failed), length(results), paste(details, collapse = "\n  ")),
                    task_id = task$id, results = results)
      }
      values <- lapply(results, function(r) r$result)
      if (self$use.master.container) values[[1]] else values
    },

    #' vtg's name: waits for a task (list with id, or an id) and returns its results.
    wait.for.results = function(task) self$waitForResults(task)
  ), client_task_methods, client_admin_methods, client_store_methods),

  private = list(
    access_token = NULL,
    refresh_token = NULL,
    refresh_url = NULL,
    key = NULL,

    url = function(endpoint) paste0(self$host, self$api_path, endpoint),

    need_login = function() {
      if (is.null(private$access_token)) {
        federa_stop("authentication_error", "not logged in: call authenticate(username, password) first")
      }
    },

    set_tokens = function(data) {
      private$access_token <- data$access_token
      if (!is.null(data$refresh_token)) private$refresh_token <- data$refresh_token
      if (!is.null(data$refresh_url)) private$refresh_url <- data$refresh_url
    },

    refresh = function() {
      if (is.null(private$refresh_token)) {
        federa_stop("authentication_error", "the session expired and there is no refresh token; log in again")
      }
      self$log("Refreshing the session token")
      path <- if (is.null(private$refresh_url)) paste0(self$api_path, "/token/refresh") else private$refresh_url
      response <- http_send("POST", paste0(self$host, path), token = private$refresh_token,
                            timeout = self$timeout, endpoint = "/token/refresh")
      data <- response_body(response)
      if (httr::status_code(response) != 200L || !is.list(data) || is.null(data$access_token)) {
        private$access_token <- NULL
        private$refresh_token <- NULL
        federa_stop("authentication_error", "the session expired and could not be refreshed; log in again",
                    status = httr::status_code(response), server_message = server_text(data))
      }
      private$set_tokens(data)
    },

    respond = function(method, endpoint, query = NULL, body = NULL, authenticated = TRUE, url = private$url(endpoint)) {
      if (authenticated) private$need_login()
      refreshed <- FALSE
      repeat {
        response <- http_send(method, url, query = query, body = body,
                              token = if (authenticated) private$access_token else NULL,
                              timeout = self$timeout, endpoint = endpoint)
        status <- httr::status_code(response)
        if (status <= 299L) return(response)
        if (authenticated && !refreshed && status == 401L) {
          data <- response_body(response)
          if (identical(data$code, "token_expired") || grepl("expired", tolower(server_text(data) %||% ""), fixed = TRUE)) {
            private$refresh()
            refreshed <- TRUE
            next
          }
        }
        raise_for(method, endpoint, response)
      }
    },

    items = function(response, endpoint) {
      body <- json_of(response, "GET", endpoint)
      if (is.list(body) && !is.null(names(body)) && is.list(body$data)) return(body$data)
      if (!is.list(body) || !is.null(names(body))) {
        federa_stop("server_error", sprintf("GET %s did not answer with a JSON list", endpoint))
      }
      body
    },

    decode = function(item) {
      if (is.list(item) && !is.null(item$result)) {
        item$result <- self$decryptPayload(item$result, sprintf("result %s", format(item$id)))
      } else if (is.list(item) && is.list(item$result_stored) && !is.null(item$id)) {
        # An output in the server's result store (docs/large-results.md): read through the stream, as inline.
        item$result <- self$readResultOutput(item$id)
      }
      if (is.list(item) && is.character(item$log)) item$log <- open_sealed_log(item$log, private$key)
      item
    }
  )
)

`%||%` <- function(a, b) if (is.null(a)) b else a

log_tail <- function(log, lines = 15L) {
  if (is.null(log) || !nzchar(log)) return("")
  parts <- strsplit(as.character(log), "\n", fixed = TRUE)[[1]]
  paste0("; log:\n    ", paste(utils::tail(parts, lines), collapse = "\n    "))
}

# The organization of a result: an id, or an object with an id, depending on the endpoint.
result_organization <- function(r) {
  org <- r[["organization"]]
  if (is.list(org)) org <- org[["id"]]
  if (is.null(org)) org <- r[["organization_id"]]
  if (is.null(org)) NA_integer_ else as.integer(org)
}
