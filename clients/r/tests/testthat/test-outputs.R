# Large outputs (docs/large-results.md): held in the server's result store, read with streamResultOutput(),
# saveResultOutput() and readResultOutput() as a stream, and by the result getters like an inline output. The test
# plays a node of the researcher's organization in a collaboration of its own (no node runs there, so its tasks
# wait) and uploads outputs through the real route, as a node does.

api_url <- function(...) paste0(test_settings()$host, test_settings()$api_path, sprintf(...))

# A collaboration of the researcher's organization alone, with a node the test plays over HTTP.
played_node <- function(encrypted) {
  s <- test_settings()
  root <- login("root")
  name <- sprintf("r-outputs-%s-%s", s$tag, paste(as.character(openssl::rand_bytes(3)), collapse = ""))
  collaboration <- root$createCollaboration(name, list(s$organizations[[1]]), encrypted = encrypted)
  node <- root$createNode(collaboration$id, organization_id = s$organizations[[1]], name = name)
  answer <- httr::POST(api_url("/token/node"), body = list(api_key = node$api_key), encode = "json")
  expect_equal(httr::status_code(answer), 200L)
  list(collaboration_id = collaboration$id, token = httr::content(answer)$access_token)
}

node_patch <- function(node, result_id, body) {
  answer <- httr::PATCH(api_url("/result/%d", result_id), body = body, encode = "json",
                        httr::add_headers(Authorization = paste("Bearer", node$token)))
  expect_equal(httr::status_code(answer), 200L, info = httr::content(answer, as = "text", encoding = "UTF-8"))
}

sha256_hex <- function(x) paste(as.character(unclass(openssl::sha256(x))), collapse = "")

utc_now <- function(offset = 0) format(Sys.time() + offset, "%Y-%m-%dT%H:%M:%OS6", tz = "UTC")

# A task of the researcher's for the played node; returns its one result id.
waiting_result <- function(client, node) {
  task <- client$createTask(node$collaboration_id, list(test_settings()$organizations[[1]]), name = "large output",
                            image = test_settings()$image, input = list(method = "large"))
  client$getResults(task_id = task$id)[[1]]$id
}

# Upload the text in text_file as the result's output (PUT /result/{id}/output, streamed from the file, with its
# SHA-256), then report the run completed naming it (result_stored), as a node does.
store_output <- function(node, result_id, text_file) {
  digest <- sha256_hex(file(text_file))
  put <- httr::PUT(api_url("/result/%d/output", result_id), body = httr::upload_file(text_file, "application/octet-stream"),
                   httr::add_headers(Authorization = paste("Bearer", node$token), `x-federa-sha256` = digest),
                   httr::timeout(300))
  expect_equal(httr::status_code(put), 201L, info = httr::content(put, as = "text", encoding = "UTF-8"))
  node_patch(node, result_id, list(started_at = utc_now(-1), status = "active"))
  node_patch(node, result_id, list(started_at = utc_now(-1), finished_at = utc_now(), status = "completed", log = "done",
                                   result_stored = list(sha256 = digest, size = file.size(text_file))))
  digest
}

text_file_of <- function(text) {
  path <- tempfile(fileext = ".txt")
  writeBin(if (is.character(text)) charToRaw(text) else text, path)
  path
}

# An encrypted collaboration's stored output: a JSON payload of about 3 MB encrypted by the TypeScript module
# (@federa/common), as a Federa node does, for the researcher's organization.
encrypted_fixture <- local({
  cache <- NULL
  function() {
    if (!is.null(cache)) return(cache)
    s <- test_settings()
    client <- login()
    client$setupEncryption(s$keys[[1]])
    node <- played_node(encrypted = TRUE)
    value <- list(rows = seq_len(300000L), note = "a large output")
    plain <- serialize_payload(value)
    text <- ts_crypto(list(op = "encrypt", private_key_pem = key_pem(s$keys[[2]]),
                           public_key_b64 = public_key_base64(s$keys[[1]]), plaintext_b64 = openssl::base64_encode(plain)))$data
    id <- waiting_result(client, node)
    digest <- store_output(node, id, text_file_of(text))
    cache <<- list(id = id, value = value, plain = plain, digest = digest, text_size = nchar(text))
    cache
  }
})

test_that("an encrypted stored output reads like an inline one, and saves to a file as it comes", {
  s <- test_settings()
  out <- encrypted_fixture()
  client <- login()
  client$setupEncryption(s$keys[[1]])

  stored <- client$getResult(out$id, decrypt = FALSE)
  expect_null(stored$result)
  expect_equal(stored$result_stored$size, out$text_size)
  expect_equal(stored$result_stored$sha256, out$digest)
  # The getters read a stored output through the stream and decode it as they do an inline one.
  expect_equal(client$getResult(out$id)$result, out$value)
  expect_equal(client$readResultOutput(out$id), out$value)
  expect_identical(client$readResultOutput(out$id, raw = TRUE), out$plain)

  folder <- tempfile("outputs-")
  dir.create(folder)
  target <- file.path(folder, "output.json")
  expect_equal(client$saveResultOutput(out$id, target), length(out$plain))
  expect_identical(readBin(target, "raw", file.size(target)), out$plain)
  expect_equal(list.files(folder, all.files = TRUE, no.. = TRUE), "output.json")
  expect_equal(unname(file.access(target, 4)), 0L)

  again <- tryCatch(client$saveResultOutput(out$id, target), federa_validation_error = function(e) e)
  expect_match(conditionMessage(again), "already exists; pass overwrite = TRUE", fixed = TRUE)
  expect_equal(client$saveResultOutput(out$id, target, overwrite = TRUE), length(out$plain))
  expect_equal(list.files(folder, all.files = TRUE, no.. = TRUE), "output.json")
})

test_that("streamResultOutput hands the plaintext over in many pieces, in order", {
  s <- test_settings()
  out <- encrypted_fixture()
  client <- login()
  client$setupEncryption(s$keys[[1]])
  pieces <- list()
  total <- client$streamResultOutput(out$id, function(piece) pieces[[length(pieces) + 1L]] <<- piece)
  expect_equal(total, length(out$plain))
  expect_gt(length(pieces), 20L)
  expect_lt(max(lengths(pieces)), length(out$plain) / 10)
  expect_identical(do.call(c, pieces), out$plain)
})

test_that("an output the node's stream encryption made (@federa/common encryptingStream) decrypts in R", {
  s <- test_settings()
  client <- login()
  client$setupEncryption(s$keys[[1]])
  node <- played_node(encrypted = TRUE)
  plain <- openssl::rand_bytes(2 * 1024 * 1024 + 5)
  plain_file <- tempfile()
  writeBin(plain, plain_file)
  text_file <- tempfile()
  # As the node encrypts a large output: from the output file through encryptingStream into a file beside it.
  program <- paste(
    "const [common, key, recipient, from, to] = process.argv.slice(1);",
    "const { RsaCryptor, encryptingStream } = await import(common);",
    "const { createReadStream, createWriteStream, readFileSync } = await import('node:fs');",
    "const { pipeline } = await import('node:stream/promises');",
    "await pipeline(createReadStream(from), encryptingStream(new RsaCryptor(readFileSync(key, 'utf8')), recipient),",
    "  createWriteStream(to));")
  common <- paste0("file://", repo_path("packages", "common", "dist", "index.js"))
  status <- system2("node", c("--input-type=module", "-e", shQuote(program), common, shQuote(s$keys[[2]]),
                              public_key_base64(s$keys[[1]]), plain_file, text_file))
  expect_equal(status, 0L)
  id <- waiting_result(client, node)
  store_output(node, id, text_file)
  target <- tempfile()
  expect_equal(client$saveResultOutput(id, target), length(plain))
  expect_identical(readBin(target, "raw", file.size(target) + 1), plain)
})

test_that("an unencrypted stored output saves byte for byte", {
  client <- login()
  node <- played_node(encrypted = FALSE)
  plain <- openssl::rand_bytes(3 * 1024 * 1024 + 1)
  id <- waiting_result(client, node)
  store_output(node, id, text_file_of(encrypt_bytes(plain, NULL)))
  target <- tempfile(fileext = ".bin")
  expect_equal(client$saveResultOutput(id, target), length(plain))
  expect_identical(readBin(target, "raw", file.size(target) + 1), plain)
  expect_identical(client$readResultOutput(id, raw = TRUE), plain)
  # An inline output reads the same way through the stream.
  inline <- waiting_result(client, node)
  node_patch(node, inline, list(started_at = utc_now(-1), status = "active"))
  node_patch(node, inline, list(started_at = utc_now(-1), finished_at = utc_now(), status = "completed", log = "done",
                                result = encrypt_bytes(serialize_payload(list(a = 1)), NULL)))
  expect_equal(client$readResultOutput(inline), list(a = 1))
  # A run without output has nothing to read.
  open <- waiting_result(client, node)
  err <- tryCatch(client$readResultOutput(open), federa_error = function(e) e)
  expect_s3_class(err, "federa_not_found")
  expect_match(conditionMessage(err), sprintf("GET /result/%d/output", open), fixed = TRUE)
})

# Every failure leaves the folder as it was: neither the file nor its temporary ".part" file.
expect_nothing_saved <- function(client, id, class, pattern) {
  folder <- tempfile("outputs-")
  dir.create(folder)
  err <- tryCatch(client$saveResultOutput(id, file.path(folder, "output.json")), federa_error = function(e) e)
  expect_s3_class(err, class)
  expect_match(conditionMessage(err), pattern)
  expect_equal(list.files(folder, all.files = TRUE, no.. = TRUE), character(0))
  err
}

test_that("an encrypted output needs the key of the organization that created the task", {
  s <- test_settings()
  out <- encrypted_fixture()
  client <- login()
  err <- expect_nothing_saved(client, out$id, "federa_encryption_error", "is encrypted: call client\\$setupEncryption")
  expect_match(conditionMessage(err), sprintf("the output of result %d", out$id), fixed = TRUE)
  client$setupEncryption(s$keys[[2]])
  err <- expect_nothing_saved(client, out$id, "federa_encryption_error", "does not decrypt to a 32-byte AES key")
  expect_match(conditionMessage(err), sprintf("^cannot decrypt the output of result %d: ", out$id))
})

test_that("an output that arrives altered or cut short is refused and nothing is kept", {
  s <- test_settings()
  out <- encrypted_fixture()
  through <- function(mode) {
    client <- Client$new(paste0(s$faulty_proxy, "/", mode), api_path = s$api_path)
    client$authenticate(s$researcher$username, s$researcher$password)
    client$setupEncryption(s$keys[[1]])
    client
  }
  altered <- through("alter")
  err <- expect_nothing_saved(altered, out$id, "federa_encryption_error", "arrived altered or cut short")
  expect_match(conditionMessage(err), sprintf("the server's is %s); nothing was kept: read it again", out$digest),
               fixed = TRUE)
  expect_equal(err$code, "checksum_mismatch")
  expect_error(altered$readResultOutput(out$id), "arrived altered", class = "federa_encryption_error")

  cut <- through("cut")
  err <- expect_nothing_saved(cut, out$id, "federa_connection_failed",
                              sprintf("the download of the output of result %d broke off after", out$id))
  expect_match(conditionMessage(err), "nothing was kept: read it again", fixed = TRUE)
  # Cut before one byte of the body: the server was reached, so this is a download that broke off, not a wrong host.
  err <- expect_nothing_saved(through("cut-head"), out$id, "federa_connection_failed",
                              sprintf("the download of the output of result %d broke off after 0 bytes", out$id))
  expect_match(conditionMessage(err), "nothing was kept: read it again", fixed = TRUE)
  # A server that cannot be reached at all is named as such.
  gone <- through("cut")
  gone$host <- "http://127.0.0.1:1"
  err <- expect_nothing_saved(gone, out$id, "federa_connection_failed", sprintf(
    "cannot download the output of result %d from the Federa server at http://127.0.0.1:1 ", out$id))
  expect_match(conditionMessage(err), "is the server running and are host and port right?", fixed = TRUE)
})

test_that("a 50 MB output streams to a file in an R process whose memory does not grow by its size", {
  s <- test_settings()
  client <- login()
  client$setupEncryption(s$keys[[1]])
  node <- played_node(encrypted = TRUE)
  text_file <- local({
    plain <- openssl::rand_bytes(37.5 * 1024 * 1024)
    plain_sha <- sha256_hex(plain)
    path <- text_file_of(encrypt_bytes(plain, public_key_base64(s$keys[[1]])))
    attr(path, "plain") <- list(size = length(plain), sha256 = plain_sha)
    path
  })
  gc()
  expect_gt(file.size(text_file), 50e6)
  id <- waiting_result(client, node)
  store_output(node, id, text_file)
  plain <- attr(text_file, "plain")

  # A fresh R process, so that its peak memory (VmHWM) says what saving the output took. It first saves the 3 MB
  # output of the tests above, so that what any first download costs (loading libraries, a first RSA decryption)
  # is in the figure before.
  warm_up <- encrypted_fixture()$id
  target <- tempfile(fileext = ".bin")
  script <- tempfile(fileext = ".R")
  writeLines(c(
    "suppressPackageStartupMessages(library(federa))",
    "s <- jsonlite::fromJSON(Sys.getenv('FEDERA_R_TEST_SETTINGS'), simplifyVector = FALSE)",
    "peak <- function() as.numeric(sub('[^0-9]*([0-9]+).*', '\\\\1', grep('^VmHWM', readLines('/proc/self/status'), value = TRUE))) * 1024",
    "client <- Client$new(s$host, api_path = s$api_path)",
    "client$authenticate(s$researcher$username, s$researcher$password)",
    "client$setupEncryption(s$keys[[1]])",
    sprintf("client$saveResultOutput(%d, tempfile())", warm_up),
    "gc(); before <- peak()",
    sprintf("took <- system.time(size <- client$saveResultOutput(%d, %s))[['elapsed']]", id,
            encodeString(target, quote = '"')),
    "cat(sprintf('%.0f %.0f %.0f %.2f\\n', before, peak(), size, took))"
  ), script)
  out <- system2(file.path(R.home("bin"), "Rscript"), script, stdout = TRUE, stderr = TRUE)
  figures <- as.numeric(strsplit(utils::tail(out, 1), " ")[[1]])
  expect_length(figures, 4L)
  grew <- figures[2] - figures[1]
  message(sprintf("saving a %.1f MB output (%.1f MB of text) took %.1f s; peak memory of the R process grew %.1f MB",
                  plain$size / 1e6, file.size(text_file) / 1e6, figures[4], grew / 1e6))
  # Held whole, the text and the plaintext alone would take 90 MB.
  expect_equal(figures[3], plain$size)
  expect_lt(grew, 20e6)
  expect_equal(sha256_hex(file(target)), plain$sha256)

  pieces <- 0L
  expect_equal(client$streamResultOutput(id, function(piece) pieces <<- pieces + 1L), plain$size)
  expect_gt(pieces, 500L)
  unlink(c(target, text_file))
})
