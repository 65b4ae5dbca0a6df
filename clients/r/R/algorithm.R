# Running an R package's functions in a Federa node's algorithm container (docs/client-r.md, "R algorithms").
# The node gives the container INPUT_FILE, OUTPUT_FILE, TOKEN_FILE, HOST, PORT, API_PATH and the data sources
# (DATABASE_URI, USER_REQUESTED_DATABASE_LABEL, <LABEL>_DATABASE_URI, <LABEL>_DATABASE_TYPE); see
# docs/algorithm-development.md.

#' The task's data source as a data.frame (CSV sources; other types raise an error naming the type).
#' @export
load_data <- function(env = Sys.getenv()) {
  get <- function(name) {
    v <- as.character(env[name])
    if (is.na(v) || !nzchar(v)) NULL else v
  }
  label <- get("USER_REQUESTED_DATABASE_LABEL")
  uri <- if (!is.null(label)) get(paste0(toupper(label), "_DATABASE_URI")) else NULL
  if (is.null(uri)) uri <- get("DATABASE_URI")
  if (is.null(uri)) {
    federa_stop("algorithm_error", paste0(
      "no data source: neither <LABEL>_DATABASE_URI of USER_REQUESTED_DATABASE_LABEL nor DATABASE_URI is set"))
  }
  type <- if (!is.null(label)) get(paste0(toupper(label), "_DATABASE_TYPE")) else NULL
  if (is.null(type)) type <- "csv"
  if (!identical(tolower(type), "csv")) {
    federa_stop("algorithm_error", sprintf("only csv data sources can be loaded by federa::load_data; this one is '%s'", type))
  }
  utils::read.csv(uri, stringsAsFactors = FALSE, check.names = FALSE)
}

#' Run the method the task asks for from package `pkg` and write its result; the container's main program.
#'
#' A normal run calls `RPC_<method>(data, <args>, <kwargs>)`; a master run (input `master: true`) calls
#' `<method>(client, data, <args>, <kwargs>)` with an AlgorithmClient for sub-tasks. The result is written as
#' "json." + JSON. Errors are printed (they become the run's log) and end the process with status 1.
#' @param pkg name of an installed package (or an environment holding the functions).
#' @export
run_algorithm <- function(pkg, env = Sys.getenv(), quit = TRUE) {
  ok <- tryCatch({
    algorithm_main(pkg, env)
    TRUE
  }, error = function(e) {
    message("federa algorithm: ", conditionMessage(e))
    FALSE
  })
  if (quit) base::quit(save = "no", status = if (ok) 0L else 1L)
  invisible(ok)
}

#' vtg's name for run_algorithm().
#' @export
docker.wrapper <- function(pkg) run_algorithm(pkg)

algorithm_main <- function(pkg, env) {
  var <- function(name) {
    v <- as.character(env[name])
    if (is.na(v) || !nzchar(v)) federa_stop("algorithm_error", sprintf("the node did not set %s", name))
    v
  }
  input_file <- var("INPUT_FILE")
  raw <- readBin(input_file, "raw", n = file.size(input_file))
  input <- deserialize_payload(raw, "the task input")
  if (!is.list(input) || !is.character(input$method) || length(input$method) != 1L) {
    federa_stop("algorithm_error", "the task input has no 'method' (expected list(method, args, kwargs))")
  }
  if (!is.null(input$output_format) && !identical(tolower(input$output_format), "json")) {
    federa_stop("algorithm_error", sprintf(
      "R algorithms write JSON only; the task asked for output_format '%s'", input$output_format))
  }
  master <- isTRUE(input$master)
  name <- if (master) input$method else paste0("RPC_", input$method)
  where <- if (is.environment(pkg)) pkg else asNamespace(pkg)
  if (!exists(name, envir = where, mode = "function", inherits = FALSE)) {
    federa_stop("algorithm_error", sprintf("the algorithm has no function '%s'", name))
  }
  fun <- get(name, envir = where, mode = "function", inherits = FALSE)
  args <- c(as.list(input$args %||% list()), as.list(input$kwargs %||% list()))
  data <- load_data(env)
  cat(sprintf("federa algorithm: calling %s\n", name))
  result <- if (master) {
    do.call(fun, c(list(AlgorithmClient$new(env = env), data), args))
  } else {
    do.call(fun, c(list(data), args))
  }
  writeBin(serialize_payload(result), var("OUTPUT_FILE"))
  cat(sprintf("federa algorithm: %s done\n", name))
  invisible(result)
}

#' The client a master algorithm gets: sub-tasks and their results through the node's proxy.
#' @export
AlgorithmClient <- R6::R6Class("AlgorithmClient",
  public = list(
    host = NULL,
    node_id = NULL,
    organization_id = NULL,
    collaboration_id = NULL,
    task_id = NULL,
    image = NULL,
    database = "default",

    initialize = function(env = Sys.getenv()) {
      var <- function(name, default = NULL) {
        v <- as.character(env[name])
        if (is.na(v)) default else v
      }
      token_file <- var("TOKEN_FILE")
      if (is.null(token_file)) federa_stop("algorithm_error", "the node did not set TOKEN_FILE")
      private$token <- trimws(paste(readLines(token_file, warn = FALSE), collapse = ""))
      self$host <- paste0(sub("/+$", "", var("HOST", "")), ":", var("PORT", ""), var("API_PATH", ""))
      part <- strsplit(private$token, ".", fixed = TRUE)[[1]][2]
      claims <- tryCatch(jsonlite::fromJSON(rawToChar(b64_decode(chartr("-_", "+/", part))), simplifyVector = FALSE),
                         error = function(e) NULL)
      ident <- if (is.list(claims$sub)) claims$sub else claims$identity
      if (!is.list(ident)) federa_stop("algorithm_error", "the container token carries no identity (sub/identity)")
      self$node_id <- ident$node_id
      self$organization_id <- ident$organization_id
      self$collaboration_id <- ident$collaboration_id
      self$task_id <- ident$task_id
      self$image <- ident$image
      self$database <- ident$database %||% "default"
    },

    #' @field retry_for Seconds a request is tried again while the node's proxy is away or answers 502/503/504
    #'   (its node restarting); 0: never again.
    retry_for = 120,

    request = function(method, endpoint, body = NULL) {
      # A request that changes something is sent again only when it cannot have arrived (connection refused,
      # or the proxy's 503): never twice to the server.
      safe <- method %in% c("GET", "HEAD")
      deadline <- Sys.time() + self$retry_for
      pause <- 0.25
      repeat {
        late <- Sys.time() + pause > deadline
        response <- tryCatch(
          http_send(method, paste0(self$host, endpoint), body = body, token = private$token, timeout = 60,
                    endpoint = endpoint),
          federa_connection_failed = function(e) {
            if (late || !(isTRUE(e$refused) || (safe && !grepl("did not answer", conditionMessage(e))))) stop(e)
            NULL
          })
        if (!is.null(response)) {
          status <- httr::status_code(response)
          again <- status == 503L || (safe && status %in% c(502L, 504L))
          if (!again || late) break
        }
        Sys.sleep(pause)
        pause <- min(pause * 2, 5)
      }
      if (httr::status_code(response) > 299L) raise_for(method, endpoint, response)
      json_of(response, method, endpoint)
    },

    organization_ids = function() {
      body <- self$request("GET", sprintf("/collaboration/%s/organization", self$collaboration_id))
      items <- if (!is.null(names(body))) body$data else body
      vapply(items, function(o) as.integer(o$id), 1L)
    },

    #' Create a sub-task with the same image; input list(method, args, kwargs) is sent as JSON (the proxy
    #' encrypts it for each organization).
    create_new_task = function(input, organization_ids, name = "subtask", description = NULL) {
      if (is.null(input$output_format)) input$output_format <- "json"
      if (is.null(input$kwargs) || !length(input$kwargs)) input$kwargs <- structure(list(), names = character(0))
      if (is.null(input$args)) input$args <- list()
      payload <- b64_encode(serialize_payload(input))
      self$request("POST", "/task", list(
        name = name,
        description = description %||% sprintf("sub-task created by the algorithm of node %s", format(self$node_id)),
        image = self$image, collaboration_id = self$collaboration_id, database = self$database,
        organizations = lapply(as.list(organization_ids), function(o) list(id = as.integer(o), input = payload))))
    },

    wait_for_results = function(task_id, interval = 1, timeout = 1800) {
      start <- Sys.time()
      pause <- 0.2
      while (!isTRUE(self$request("GET", sprintf("/task/%s", task_id))$complete)) {
        if (as.numeric(difftime(Sys.time(), start, units = "secs")) > timeout) {
          federa_stop("task_timeout", sprintf("sub-task %s did not complete in time", task_id))
        }
        Sys.sleep(pause)
        pause <- min(pause * 2, interval)
      }
      self$get_results(task_id)
    },

    get_results = function(task_id) {
      body <- self$request("GET", sprintf("/task/%s/result", task_id))
      items <- if (!is.null(names(body))) body$data else body
      lapply(items, function(item) {
        if (is.null(item$result) || !nzchar(item$result)) {
          if (!is.null(item$status) && !identical(item$status, "completed")) {
            federa_stop("task_failed", sprintf("a sub-task run failed (%s)%s", item$status, log_tail(item$log)))
          }
          return(NULL)
        }
        deserialize_payload(b64_decode(item$result, "a sub-task result"), "a sub-task result")
      })
    }
  ),
  private = list(token = NULL)
)
