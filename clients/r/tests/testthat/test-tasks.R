# Tasks on real nodes running algorithms in Docker: vtg's call(), master tasks, failures, logs, kill.

researcher_client <- function() {
  s <- test_settings()
  client <- login("researcher")
  client$setupEncryption(s$keys[[1]])
  client$setCollaborationId(s$collaboration_id)
  client$task.timeout <- 240
  client
}

test_that("call() runs an R algorithm at every organization and returns each organization's result", {
  s <- test_settings()
  client <- researcher_client()
  client$set.task.image(s$image, task.name = "partial average (R)")
  results <- client$call("partial_average", column = "age")
  expect_length(results, 2)
  got <- lapply(results, function(r) c(r$sum, r$count))
  want <- lapply(s$expected$ages, function(a) c(sum(unlist(a)), length(a)))
  expect_setequal(got, want)
})

test_that("a master task combines sub-tasks through the node's proxy (encrypted both ways)", {
  s <- test_settings()
  client <- researcher_client()
  client$set.task.image(s$image, task.name = "central average (R)")
  client$setUseMasterContainer(TRUE)
  result <- client$call("central_average", "age")
  expect_equal(result$average, s$expected$average)
  expect_equal(result$count, s$expected$count)
  expect_equal(result$organizations, 2)
})

test_that("R input runs in the Python algorithm and its result reads in R", {
  s <- test_settings()
  client <- researcher_client()
  client$set.task.image(s$python_image, task.name = "partial average (Python)")
  client$setOrganizations(s$organizations[2])
  result <- client$call("partial_average", column = "age")
  expect_equal(result[[1]]$sum, sum(unlist(s$expected$ages[[2]])))
})

test_that("a failed run gives federa_task_failed with the run's own error", {
  s <- test_settings()
  client <- researcher_client()
  client$set.task.image(s$image, task.name = "no such method")
  client$setOrganizations(s$organizations[1])
  err <- tryCatch(client$call("no_such_method"), federa_error = function(e) e)
  expect_s3_class(err, "federa_task_failed")
  expect_match(conditionMessage(err), "1 of 1 run(s) did not complete", fixed = TRUE)
  expect_match(conditionMessage(err), "the algorithm has no function 'RPC_no_such_method'", fixed = TRUE)
  logs <- client$getTaskLogs(err$task_id)
  expect_match(logs[[1]], "RPC_no_such_method", fixed = TRUE)
})

test_that("createTask, waitForResults, result filters and logs", {
  s <- test_settings()
  client <- researcher_client()
  task <- client$createTask(s$collaboration_id, s$organizations, name = "low level", image = s$image,
                            input = list(method = "partial_average", kwargs = list(column = "age"),
                                         output_format = "json"))
  results <- client$waitForResults(task$id, interval = 0.5, timeout = 240)
  expect_length(results, 2)
  expect_true(all(vapply(results, function(r) r$status, "") == "completed"))
  stored <- client$getResults(task_id = task$id)
  expect_length(stored, 2)
  expect_match(stored[[1]]$result, "^[^$]+\\$[^$]+\\$[^$]*$") # stored encrypted
  one <- client$getResult(stored[[1]]$id)
  expect_true(one$result$count %in% vapply(s$expected$ages, length, 1L))
  logs <- client$getTaskLogs(task$id)
  expect_length(logs, 2)
  expect_true(all(grepl("RPC_partial_average done", logs, fixed = TRUE)))
  expect_equal(client$getTasks(name = "low level")[[1]]$id, task$id)
})

test_that("a task still running gives federa_task_timeout, and killTask stops it", {
  s <- test_settings()
  client <- researcher_client()
  # federa/helper:local only sleeps: its run stays active until it is killed.
  task <- client$createTask(s$collaboration_id, s$organizations[1], name = "to be killed",
                            image = "federa/helper:local", input = list(method = "sleep"))
  status <- function() client$getResults(task_id = task$id)[[1]]$status
  deadline <- Sys.time() + 120
  while (!identical(status(), "active") && Sys.time() < deadline) Sys.sleep(0.5)
  expect_equal(status(), "active")
  expect_error(client$waitForResults(task$id, interval = 0.2, timeout = 1), "was not complete after 1 seconds",
               class = "federa_task_timeout")
  # Whoever may post a task may kill it: the Researcher kills their organization's task.
  client$killTask(task$id)
  results <- client$waitForResults(task$id, interval = 0.5, timeout = 120)
  expect_equal(results[[1]]$status, "killed by user")
})
