# The algorithm store methods of Client (client.R; docs/store.md): the store inside the server answers beside its
# API, at <host>/store/api. R6 binds `self` and `private` in each of them when a Client is made.
client_store_methods <- list(
  #' @field store_path where the store answers on the server's host.
  store_path = "/store/api",

  #' Send one request to the store (as request() does to the API, with the same login); returns the decoded JSON.
  storeRequest = function(method, endpoint, query = NULL, body = NULL) {
    method <- toupper(method)
    endpoint <- paste0("/", sub("^/+", "", endpoint))
    url <- paste0(self$host, "/", gsub("^/+|/+$", "", self$store_path), endpoint)
    json_of(private$respond(method, endpoint, query, body, TRUE, url = url), method, endpoint)
  },

  #' One page of store algorithms, newest first: approved ones unless status says otherwise ("all" for
  #' reviewers). search: words that must each be in the name, display name or description.
  getStoreAlgorithms = function(search = NULL, name = NULL, partitioning = NULL, status = NULL, image = NULL,
                                page = NULL, per_page = NULL) {
    body <- self$storeRequest("GET", "/algorithm", query = query_params(drop_null(list(
      search = search, name = name, partitioning = partitioning, status = status, image = image, page = page,
      per_page = per_page))))
    if (is.null(body$data)) list() else body$data
  },
  #' One store algorithm with its functions.
  getStoreAlgorithm = function(id) self$storeRequest("GET", sprintf("/algorithm/%d", as_id(id, "algorithm_id"))),
  #' The functions of a store algorithm: name, type (central or federated), arguments, databases.
  getStoreFunctions = function(id) {
    fns <- self$getStoreAlgorithm(id)$functions
    if (is.null(fns)) list() else fns
  },
  #' Submit an author's description (a list, or the path of its JSON file).
  submitStoreAlgorithm = function(description) {
    if (is.character(description) && length(description) == 1L && file.exists(description)) {
      description <- jsonlite::fromJSON(description, simplifyVector = FALSE)
    }
    self$log("Submitting algorithm ", format(description$name), " to the store")
    self$storeRequest("POST", "/algorithm", body = description)
  },
  #' Reviews the caller may see; e.g. getStoreReviews(reviewer_id = client$getStoreMe()$id, status = "under review").
  getStoreReviews = function(algorithm_id = NULL, reviewer_id = NULL, status = NULL) {
    body <- self$storeRequest("GET", "/review", query = query_params(drop_null(list(
      algorithm_id = if (is.null(algorithm_id)) NULL else as_id(algorithm_id, "algorithm_id"),
      reviewer_id = if (is.null(reviewer_id)) NULL else as_id(reviewer_id, "reviewer_id"), status = status))))
    if (is.null(body$data)) list() else body$data
  },
  #' Who the store takes the caller for, with their store roles.
  getStoreMe = function() self$storeRequest("GET", "/user/me"),
  assignStoreReviewer = function(algorithm_id, reviewer_id) {
    self$storeRequest("POST", "/review", body = list(algorithm_id = as_id(algorithm_id, "algorithm_id"),
                                                     reviewer_id = as_id(reviewer_id, "reviewer_id")))
  },
  approveStoreReview = function(review_id, comment = NULL) {
    self$storeRequest("POST", sprintf("/review/%d/approve", as_id(review_id, "review_id")),
                      body = drop_null(list(comment = comment)))
  },
  rejectStoreReview = function(review_id, comment) {
    self$storeRequest("POST", sprintf("/review/%d/reject", as_id(review_id, "review_id")), body = list(comment = comment))
  },

  #' Create a task from an approved store algorithm, one of its functions and its keyword arguments (a named list).
  #' The task runs the approved image at its digest; a central function's input is sent as master, which its
  #' wrapper needs to call the central entry point. In a collaboration that is not encrypted the server checks the
  #' arguments against the function and a wrong one raises a federa_validation_error naming it.
  createStoreTask = function(algorithm_id, fn, arguments = list(), organizations = self$organizations,
                             collaboration_id = self$collaboration_id, name = NULL, description = "",
                             database = "default") {
    if (is.null(collaboration_id)) federa_stop("validation_error", "no collaboration: call setCollaborationId() first")
    algorithm <- self$getStoreAlgorithm(algorithm_id)
    if (!identical(algorithm$status, "approved") || is.null(algorithm$digest)) {
      federa_stop("validation_error", sprintf("store algorithm %s is %s, not approved: it cannot run",
                                              format(algorithm$id), format(algorithm$status)))
    }
    found <- Filter(function(f) identical(f$name, fn), algorithm$functions)
    if (!length(found)) {
      names <- vapply(algorithm$functions, function(f) as.character(f$name), "")
      federa_stop("validation_error", sprintf("store algorithm %s has no function '%s'; its functions: %s",
                                              format(algorithm$id), fn, paste(names, collapse = ", ")))
    }
    f <- found[[1]]
    if (is.null(organizations)) {
      organizations <- vapply(self$getCollaborationOrganizations(collaboration_id), function(o) as.numeric(o$id), 0)
    }
    kwargs <- if (length(arguments)) arguments else structure(list(), names = character(0))
    input <- list(method = fn, master = identical(f$type, "central"), args = list(), kwargs = kwargs,
                  output_format = "json")
    self$createTask(collaboration_id, organizations, name %||% (f$display_name %||% fn),
                    paste0(algorithm$image, "@", algorithm$digest), input, description = description,
                    database = database, extra = list(store_algorithm_id = algorithm$id))
  }
)
