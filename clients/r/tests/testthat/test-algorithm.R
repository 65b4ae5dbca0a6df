# The algorithm wrapper on its own (the runs in Docker are in test-tasks.R).

fake_algorithm <- function() {
  env <- new.env()
  env$RPC_column_sum <- function(data, column, scale = 1) list(sum = sum(data[[column]]) * scale, rows = nrow(data))
  env$RPC_broken <- function(data) stop("the column 'weight' is missing")
  env
}

container_env <- function(input) {
  dir <- tempfile("container-")
  dir.create(dir)
  writeLines(c("id,age", "1,30", "2,50", "3,70"), file.path(dir, "data.csv"))
  writeBin(charToRaw(input), file.path(dir, "input"))
  c(INPUT_FILE = file.path(dir, "input"), OUTPUT_FILE = file.path(dir, "output"),
    USER_REQUESTED_DATABASE_LABEL = "default", DEFAULT_DATABASE_URI = file.path(dir, "data.csv"),
    DEFAULT_DATABASE_TYPE = "csv")
}

test_that("run_algorithm calls RPC_<method> with the data source, args and kwargs, and writes JSON", {
  env <- container_env('json.{"method":"column_sum","args":["age"],"kwargs":{"scale":2},"output_format":"json"}')
  out <- capture.output(ok <- run_algorithm(fake_algorithm(), env = env, quit = FALSE))
  expect_true(ok)
  expect_match(out, "calling RPC_column_sum", all = FALSE)
  expect_identical(rawToChar(readBin(env[["OUTPUT_FILE"]], "raw", 100)), 'json.{"sum":300,"rows":3}')
})

test_that("the algorithm's own error and a missing method end the run with a message and no output", {
  for (case in list(c("broken", "the column 'weight' is missing"), c("absent", "has no function 'RPC_absent'"))) {
    env <- container_env(sprintf('json.{"method":"%s","args":[],"kwargs":{}}', case[1]))
    expect_message(capture.output(ok <- run_algorithm(fake_algorithm(), env = env, quit = FALSE)), case[2], fixed = TRUE)
    expect_false(ok)
    expect_false(file.exists(env[["OUTPUT_FILE"]]))
  }
})

test_that("pickled input and non-CSV data sources are refused with clear messages", {
  env <- container_env("pickle.\x80\x04")
  expect_message(run_algorithm(fake_algorithm(), env = env, quit = FALSE), "pickle format, which R cannot read")
  env <- container_env('json.{"method":"column_sum","args":["age"]}')
  env[["DEFAULT_DATABASE_TYPE"]] <- "sql"
  expect_message(capture.output(run_algorithm(fake_algorithm(), env = env, quit = FALSE)), "this one is 'sql'")
})
