# Shared set-up of the tests. run-tests.mjs starts a real server and two real nodes and passes what the tests
# need in the file named by FEDERA_R_TEST_SETTINGS.

test_settings <- local({
  cache <- NULL
  function() {
    if (is.null(cache)) {
      path <- Sys.getenv("FEDERA_R_TEST_SETTINGS")
      if (!nzchar(path)) stop("run the R tests through clients/r/tests/run-tests.mjs (it starts the server and nodes)")
      cache <<- jsonlite::fromJSON(path, simplifyVector = FALSE)
    }
    cache
  }
})

repo_path <- function(...) file.path(test_settings()$repo, ...)

# A logged-in client: "root" or "researcher" (the researcher's organization has a node and a key).
login <- function(who = "researcher", verbose = FALSE) {
  s <- test_settings()
  client <- Client$new(s$host, api_path = s$api_path, verbose = verbose)
  client$authenticate(s[[who]]$username, s[[who]]$password)
  client
}

# Run a program with stdin text; return its stdout (fails the test with its stderr otherwise).
run_program <- function(command, args, input) {
  input_file <- tempfile()
  writeLines(input, input_file)
  err_file <- tempfile()
  out <- suppressWarnings(system2(command, args, stdin = input_file, stdout = TRUE, stderr = err_file))
  status <- attr(out, "status")
  if (!is.null(status) && status != 0) stop(sprintf("%s failed: %s", command, paste(readLines(err_file), collapse = "\n")))
  paste(out, collapse = "\n")
}

# The Python client's encryption module (clients/python), run by Debian's python3.
python_crypto <- function(code, input) {
  prelude <- sprintf("import sys, json, base64; sys.path.insert(0, %s); from federa_client.encryption import RSACryptor",
                     encodeString(repo_path("clients", "python"), quote = '"'))
  run_program("/usr/bin/python3", c("-c", shQuote(paste(prelude, code, sep = "\n"))), input)
}

# The TypeScript encryption module (@federa/common), through the Python tests' filter script.
ts_crypto <- function(request) {
  jsonlite::fromJSON(run_program("node", shQuote(repo_path("clients", "python", "tests", "ts_crypto.mjs")),
                                 jsonlite::toJSON(request, auto_unbox = TRUE)), simplifyVector = FALSE)
}

key_pem <- function(path) paste(readLines(path), collapse = "\n")
