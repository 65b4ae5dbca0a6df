# Federated average of one column. Run in a Federa node's container by federa::run_algorithm("averager").

#' Sum and count of the non-missing values of `column` at one organization.
RPC_partial_average <- function(data, column) {
  if (!column %in% names(data)) {
    stop(sprintf("the data has no column '%s' (it has: %s)", column, paste(names(data), collapse = ", ")))
  }
  values <- suppressWarnings(as.numeric(data[[column]]))
  values <- values[!is.na(values)]
  list(sum = sum(values), count = length(values))
}

#' Master: a sub-task at every organization of the collaboration, then the combined average.
central_average <- function(client, data, column) {
  organizations <- client$organization_ids()
  task <- client$create_new_task(list(method = "partial_average", args = list(column)),
                                 organization_ids = organizations, name = "partial average")
  partials <- client$wait_for_results(task$id)
  total <- sum(vapply(partials, function(p) p$sum, numeric(1)))
  count <- sum(vapply(partials, function(p) p$count, numeric(1)))
  list(average = if (count > 0) total / count else NULL, count = count, organizations = length(partials))
}
