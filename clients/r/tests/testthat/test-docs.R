# docs/client-r.md works as written: every ```r block runs, in order, against the test server and nodes; only
# the address, the user name, the password (read from FEDERA_PASSWORD, as the page advises) and the key file are
# replaced.

# The plaintext bytes of a run's output, read whole (to compare what the page's example saved with).
client_output_bytes <- function(client, id) client$readResultOutput(id, raw = TRUE)

test_that("the examples of docs/client-r.md run as written", {
  s <- test_settings()
  text <- paste(readLines(repo_path("docs", "client-r.md"), warn = FALSE), collapse = "\n")
  blocks <- regmatches(text, gregexpr("(?ms)^```r\n.*?^```", text, perl = TRUE))[[1]]
  expect_gte(length(blocks), 8)
  code <- paste(sub("```$", "", sub("^```r\n", "", blocks)), collapse = "\n")
  code <- gsub("http://localhost:5000", s$host, code, fixed = TRUE)
  code <- gsub('"researcher"', sprintf('"%s"', s$researcher$username), code, fixed = TRUE)
  code <- gsub("my-organization.pem", s$keys[[1]], code, fixed = TRUE)
  old <- Sys.getenv("FEDERA_PASSWORD", unset = NA)
  Sys.setenv(FEDERA_PASSWORD = s$researcher$password)
  on.exit(if (is.na(old)) Sys.unsetenv("FEDERA_PASSWORD") else Sys.setenv(FEDERA_PASSWORD = old), add = TRUE)
  env <- new.env(parent = globalenv())
  out <- capture.output(for (expr in parse(text = code, keep.source = FALSE)) print(eval(expr, env)))
  printed <- paste(out, collapse = "\n")

  expect_match(printed, sprintf("average age %.2f over %d rows at 2 organizations", s$expected$average,
                                s$expected$count), fixed = TRUE)
  expect_match(printed, "[federa] Encrypting input for organization", fixed = TRUE)
  expect_match(printed, "no such collaboration:", fixed = TRUE)
  expect_s3_class(env$refused, "federa_permission_denied")
  expect_equal(sort(vapply(env$partials, function(p) p$count, 1)), sort(vapply(s$expected$ages, length, 1L)))
  expect_true(all(vapply(env$results, function(r) r$status, "") == "completed"))
  expect_length(env$logs, 2)
  expect_equal(env$size, length(client_output_bytes(env$client, env$run)))
  expect_gte(env$pieces, 1)
  expect_false(grepl(s$researcher$password, printed, fixed = TRUE))
})
