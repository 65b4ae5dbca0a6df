# The algorithm store inside the server: a researcher searches the catalogue, reads an algorithm with its functions
# and creates a task from an algorithm, a function and its arguments; a reviewer finds their open reviews.

store_description <- function(name, image) {
  list(
    name = name, display_name = "R client average", description = "Mean of a numeric column, from R",
    image = image, partitioning = "horizontal", vantage6_version = "4.14", code_url = "https://example.org/average",
    functions = list(
      list(name = "central_average", type = "central", display_name = "Average",
           arguments = list(list(name = "column_name", type = "column"))),
      list(name = "partial_average", type = "federated",
           arguments = list(list(name = "column_name", type = "column")),
           output = list(kind = "count_table", counts = "count"))
    )
  )
}

digest <- paste0("sha256:", strrep("7", 64))

# An algorithm approved by the researcher as reviewer (the store's policy lowered to one reviewer).
approved_algorithm <- local({
  made <- NULL
  function() {
    if (!is.null(made)) return(made)
    s <- test_settings()
    root <- login("root")
    root$storeRequest("PATCH", "/policy", body = list(min_reviewers = 1, min_reviewing_organizations = 1))
    entry <- root$storeRequest("POST", "/user", body = list(username = s$researcher$username, roles = list("reviewer")))
    algorithm <- root$submitStoreAlgorithm(store_description("r-average", paste0("reg.example.org/r-average:1@", digest)))
    review <- root$assignStoreReviewer(algorithm$id, entry$id)
    reviewer <- login("researcher")
    expect_equal(reviewer$getStoreMe()$id, entry$id)
    open <- reviewer$getStoreReviews(reviewer_id = entry$id, status = "under review")
    expect_equal(vapply(open, function(r) r$id, 0), review$id)
    expect_equal(reviewer$approveStoreReview(review$id, "read the code")$algorithm_status, "approved")
    expect_length(reviewer$getStoreReviews(reviewer_id = entry$id, status = "under review"), 0)
    made <<- algorithm
    made
  }
})

test_that("a reviewer approves, and a researcher searches the store and reads an algorithm with its functions", {
  algorithm <- approved_algorithm()
  client <- login("researcher")
  found <- client$getStoreAlgorithms(search = "numeric from R")
  expect_equal(vapply(found, function(a) a$name, ""), "r-average")
  expect_length(client$getStoreAlgorithms(search = "nothing-like-this"), 0)
  read <- client$getStoreAlgorithm(algorithm$id)
  expect_equal(read$digest, digest)
  fns <- client$getStoreFunctions(algorithm$id)
  expect_equal(vapply(fns, function(f) f$name, ""), c("central_average", "partial_average"))
  expect_equal(fns[[1]]$type, "central")
  expect_equal(fns[[2]]$output, list(kind = "count_table", counts = "count"))
  expect_error(client$getStoreAlgorithm(999999), class = "federa_not_found")
})

test_that("createStoreTask() runs the approved digest of the function, sent as master when it is central", {
  s <- test_settings()
  algorithm <- approved_algorithm()
  client <- login("researcher")
  client$setupEncryption(s$keys[[1]])
  client$setCollaborationId(s$collaboration_id)
  task <- client$createStoreTask(algorithm$id, "central_average", list(column_name = "age"),
                                 organizations = s$organizations[1])
  # The image is not in a registry: the nodes cannot run it, so the task is removed at once.
  on.exit(client$deleteTask(task$id), add = TRUE)
  expect_equal(task$image, paste0("reg.example.org/r-average:1@", digest))
  expect_equal(task$name, "Average")
  expect_error(client$createStoreTask(algorithm$id, "nope", list()),
               "store algorithm [0-9]+ has no function 'nope'; its functions: central_average, partial_average")
})
