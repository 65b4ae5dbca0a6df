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

# A stand-in for the node's proxy (Python's http.server in a process of its own): answers `status` to the first
# `failures` requests, then 200, and lists the requests it saw in `seen`.
restarting_proxy <- function(failures, status) {
  seen <- tempfile("seen-")
  port_file <- tempfile("port-")
  script <- sprintf(paste(
    "import http.server, json",
    "n = [0]",
    "class H(http.server.BaseHTTPRequestHandler):",
    "    def answer(self):",
    "        n[0] += 1",
    "        open(%s, 'a').write(self.command + ' ' + self.path + '\\n')",
    "        failing = n[0] <= %d",
    "        body = json.dumps({'msg': 'restarting'} if failing else {'id': 5, 'complete': True}).encode()",
    "        self.send_response(%d if failing else 200)",
    "        self.send_header('Content-Length', str(len(body)))",
    "        self.end_headers()",
    "        self.wfile.write(body)",
    "    do_GET = do_POST = answer",
    "    def log_message(self, *a): pass",
    "s = http.server.HTTPServer(('127.0.0.1', 0), H)",
    "open(%s, 'w').write(str(s.server_port))",
    "s.serve_forever()", sep = "\n"), deparse(seen), failures, status, deparse(port_file))
  proc <- processx::process$new("python3", c("-c", script))
  for (i in 1:100) if (file.exists(port_file) && length(readLines(port_file, warn = FALSE))) break else Sys.sleep(0.05)
  list(proc = proc, port = readLines(port_file, warn = FALSE), seen = function() {
    if (file.exists(seen)) readLines(seen) else character(0)
  })
}

proxy_client <- function(port, retry_for) {
  token_file <- tempfile("token-")
  part <- gsub("=", "", chartr("+/", "-_", jsonlite::base64_enc(charToRaw('{"sub":{"node_id":1,"task_id":2}}'))))
  writeLines(sprintf("e30.%s.c2ln", part), token_file)
  client <- AlgorithmClient$new(env = c(TOKEN_FILE = token_file, HOST = "http://127.0.0.1", PORT = port))
  client$retry_for <- retry_for
  client
}

test_that("a request is tried again while the node's proxy answers 503 (its node restarting)", {
  p <- restarting_proxy(2, 503)
  on.exit(p$proc$kill())
  expect_identical(proxy_client(p$port, 10)$request("GET", "/task/5")$id, 5L)
  expect_identical(p$seen(), rep("GET /task/5", 3))
})

test_that("a request that changes something is not sent twice after a 502; a read gives up after its time", {
  p <- restarting_proxy(100, 502)
  on.exit(p$proc$kill())
  expect_error(proxy_client(p$port, 10)$request("POST", "/task", list(name = "x")), class = "federa_server_error")
  expect_length(p$seen(), 1)
  expect_error(proxy_client(p$port, 0.6)$request("GET", "/task/5"), class = "federa_server_error")
  expect_gt(length(p$seen()), 2)
})
