# The task methods of Client (client.R): tasks, their results and the outputs kept in the server's result store.
# R6 binds `self` and `private` in each of them when a Client is made, as for the methods written in the class itself.
client_task_methods <- list(
  # ---------------------------------------------------------------- tasks and results

  #' Post a task. input is serialized as "json." + JSON and encrypted for each organization with the public
  #' key the server holds for it (base64 only, in unencrypted collaborations).
  #' extra: more fields of the task (e.g. store_algorithm_id, docs/store.md).
  createTask = function(collaboration_id, organizations, name, image, input, description = "",
                        database = "default", extra = list()) {
    collaboration_id <- as_id(collaboration_id, "collaboration_id")
    ids <- as_ids(organizations, "organization")
    if (!length(ids)) federa_stop("validation_error", "organizations must name at least one organization id")
    payload <- serialize_payload(input)
    collab <- self$getCollaboration(collaboration_id)
    encrypted <- isTRUE(collab$encrypted)
    if (encrypted && is.null(private$key)) {
      federa_stop("encryption_error", sprintf(paste0(
        "collaboration %d is encrypted: call client$setupEncryption('<private key file of your organization>') ",
        "first"), collaboration_id))
    }
    entries <- lapply(ids, function(org) {
      if (!encrypted) return(list(id = org, input = encrypt_bytes(payload, NULL)))
      self$log("Encrypting input for organization ", org)
      public_key <- self$getOrganization(org)$public_key
      if (is.null(public_key) || !nzchar(trimws(public_key))) {
        federa_stop("encryption_error", sprintf(paste0(
          "organization %d has no public key, so input for it cannot be encrypted; its node uploads the key ",
          "when it starts"), org))
      }
      text <- tryCatch(encrypt_bytes(payload, public_key), federa_error = function(e) {
        federa_stop("encryption_error", sprintf("cannot encrypt input for organization %d: %s", org, conditionMessage(e)))
      })
      list(id = org, input = text)
    })
    self$log(sprintf("Posting task '%s' to collaboration %d", name, collaboration_id))
    self$POST("/task", c(list(collaboration_id = collaboration_id, organizations = entries, name = name,
                              description = description, image = image, database = database), extra))
  },

  getTasks = function(..., page = NULL, per_page = NULL) self$collect("/task", list(...), page, per_page),
  getTask = function(id, include_results = FALSE) {
    self$GET(sprintf("/task/%d", as_id(id)), if (include_results) list(include = "results") else NULL)
  },
  deleteTask = function(id) invisible(self$DELETE(sprintf("/task/%d", as_id(id)))),
  #' Ask the nodes to stop the task's containers.
  killTask = function(id) {
    self$log("Killing task ", as_id(id))
    invisible(self$POST("/kill/task", list(id = as_id(id))))
  },

  #' Results as stored (encrypted). Filters: task_id, organization_id, node_id, state, ...
  getResults = function(..., page = NULL, per_page = NULL) self$collect("/result", list(...), page, per_page),
  #' One result; with decrypt (default) its result field is decrypted and read.
  getResult = function(id, decrypt = TRUE) {
    item <- self$GET(sprintf("/result/%d", as_id(id)))
    if (decrypt) private$decode(item) else item
  },
  #' Every result of a task, each with its result decrypted and read.
  getTaskResults = function(task_id, decrypt = TRUE) {
    items <- self$collect(sprintf("/task/%d/result", as_id(task_id, "task_id")))
    if (decrypt) lapply(items, private$decode) else items
  },
  #' The log of every run of a task: a named character vector (names: organization ids).
  getTaskLogs = function(task_id) {
    items <- self$getTaskResults(task_id, decrypt = FALSE)
    # A sealed log (encrypted collaboration) is decrypted with the organization's key (docs/run-logs.md).
    logs <- vapply(items, function(r) if (is.null(r$log)) "" else open_sealed_log(as.character(r$log), private$key), "")
    names(logs) <- vapply(items, function(r) format(result_organization(r)), "")
    logs
  },

  # ---------------------------------------------------------------- outputs as streams (docs/large-results.md)

  #' The plaintext output of result id, handed to callback(piece) one raw vector at a time as it is downloaded
  #' (GET /result/{id}/output), checked and decrypted; never held whole. Returns the number of bytes invisibly.
  streamResultOutput = function(id, callback) {
    if (!is.function(callback)) federa_stop("validation_error", "callback must be a function of one raw vector")
    invisible(stream_output(self, private, id, callback))
  },
  #' Writes the plaintext output of result id to the file path as it comes; the file appears only once the output
  #' arrived whole, checked and decrypted (nothing is left behind otherwise). Returns the number of bytes invisibly.
  saveResultOutput = function(id, path, overwrite = FALSE) {
    invisible(save_output(self, private, id, path, overwrite))
  },
  #' The output of result id read into memory: its value (a json. payload), or with raw = TRUE its bytes. For
  #' outputs that fit in memory; saveResultOutput() is the way for large ones.
  readResultOutput = function(id, raw = FALSE) {
    pieces <- list()
    stream_output(self, private, id, function(piece) pieces[[length(pieces) + 1L]] <<- piece)
    bytes <- if (length(pieces)) do.call(c, pieces) else raw(0)
    if (isTRUE(raw)) bytes else deserialize_payload(bytes, sprintf("the output of result %d", as_id(id)))
  },

  #' Poll the task until it is complete, then return getTaskResults(). Raises federa_task_timeout.
  waitForResults = function(task, interval = 1, timeout = 600) {
    id <- as_id(task, "task")
    self$log(sprintf("Waiting for the results of task %d", id))
    start <- Sys.time()
    repeat {
      info <- self$getTask(id)
      if (isTRUE(info$complete)) break
      elapsed <- as.numeric(difftime(Sys.time(), start, units = "secs"))
      if (!is.null(timeout) && elapsed >= timeout) {
        federa_stop("task_timeout", sprintf("task %d was not complete after %s seconds (status: %s)", id,
                                            format(timeout), format(info$status %||% "unknown")))
      }
      Sys.sleep(if (is.null(timeout)) interval else max(0, min(interval, timeout - elapsed)))
    }
    self$getTaskResults(id)
  }
)
