# The client against a real server: logging in, errors with the server's message, management of the resources.

test_that("a wrong password gives a federa_authentication_error with the server's message, and no password", {
  s <- test_settings()
  client <- Client$new(s$host, api_path = s$api_path)
  wrong <- "Not-The-Password-1!"
  err <- tryCatch(client$authenticate(s$researcher$username, wrong), federa_error = function(e) e)
  expect_s3_class(err, "federa_authentication_error")
  expect_equal(err$status, 401L)
  expect_true(is.character(err$server_message) && nzchar(err$server_message))
  expect_match(conditionMessage(err), err$server_message, fixed = TRUE)
  expect_false(grepl(wrong, conditionMessage(err), fixed = TRUE))
  expect_error(client$getUsers(), "not logged in", class = "federa_authentication_error")
})

test_that("logging in prints no password or token, even verbose, and the client prints without them", {
  s <- test_settings()
  out <- capture.output(client <- login("researcher", verbose = TRUE), print(client), str(as.list(client)))
  text <- paste(out, collapse = "\n")
  expect_match(text, sprintf("Logged in as %s", s$researcher$username), fixed = TRUE)
  expect_false(grepl(s$researcher$password, text, fixed = TRUE))
  expect_false(grepl("eyJ", text, fixed = TRUE)) # no JWT
  expect_equal(client$whoami$organization_id, s$organizations[[1]])
})

test_that("getCollaborations and setCollaborationId work as in vtg", {
  s <- test_settings()
  client <- login()
  collabs <- client$getCollaborations()
  mine <- Filter(function(c) c$id == s$collaboration_id, collabs)
  expect_length(mine, 1)
  expect_setequal(mine[[1]]$organizations, unlist(s$organizations))
  expect_true(mine[[1]]$encrypted)
  client$setCollaborationId(s$collaboration_id)
  expect_true(client$collaboration$encrypted)
})

test_that("a refused request gives an R condition with the server's message", {
  client <- login("researcher")
  err <- tryCatch(client$createOrganization(name = "not allowed"), federa_error = function(e) e)
  expect_s3_class(err, "federa_permission_denied")
  expect_true(nzchar(err$server_message))
  expect_match(conditionMessage(err), "POST /organization", fixed = TRUE)
  expect_error(client$getTask(999999), "not found: GET /task/999999", class = "federa_not_found")
  root <- login("root")
  err <- tryCatch(root$createUser(username = test_settings()$researcher$username, password = "Some-Pass-123!",
                                  email = "dup@r-tests.example"), federa_error = function(e) e)
  expect_s3_class(err, "federa_validation_error")
  expect_equal(err$status, 400L)
  expect_match(conditionMessage(err), err$server_message, fixed = TRUE)
  expect_false(grepl("Some-Pass-123!", conditionMessage(err), fixed = TRUE))
})

test_that("organizations, users and roles are created, filtered, paged, updated and deleted", {
  s <- test_settings()
  root <- login("root")
  names <- sprintf("R paging %s %d", s$tag, 1:3)
  made <- lapply(names, function(n) root$createOrganization(name = n, country = "BE"))
  all <- root$getOrganizations(name = sprintf("R paging %s%%", s$tag))
  expect_setequal(vapply(all, function(o) o$name, ""), names)
  expect_equal(attr(all, "total"), 3L)
  page2 <- root$getOrganizations(name = sprintf("R paging %s%%", s$tag), page = 2, per_page = 2)
  expect_length(page2, 1)
  expect_equal(attr(page2, "total"), 3L)
  expect_equal(root$updateOrganization(made[[1]]$id, country = "NL")$country, "NL")

  rule <- root$getRules(name = "user", operation = "VIEW", scope = "ORGANIZATION")
  expect_length(rule, 1)
  role <- root$createRole(name = paste("viewer", s$tag), description = "sees users", rules = list(rule[[1]]$id),
                          organization_id = made[[1]]$id)
  expect_equal(vapply(root$getRules(role_id = role$id), function(r) r$id, 1L), rule[[1]]$id)
  user <- root$createUser(username = paste0("r-user-", s$tag), password = "R-User-Pass-2024!",
                          email = sprintf("u-%s@r-tests.example", s$tag), organization_id = made[[1]]$id,
                          roles = list(role$id))
  expect_equal(root$getUser(user$id)$username, paste0("r-user-", s$tag))
  expect_equal(root$updateUser(user$id, lastname = "Janssen")$lastname, "Janssen")
  found <- root$getUsers(organization_id = made[[1]]$id)
  expect_equal(vapply(found, function(u) u$id, 1L), user$id)
  root$deleteUser(user$id)
  expect_error(root$getUser(user$id), class = "federa_not_found")
  root$deleteRole(role$id)
  expect_error(root$getRole(role$id), class = "federa_not_found")
})

test_that("nodes are listed with filters and registered with an api key", {
  s <- test_settings()
  root <- login("root")
  online <- root$getNodes(collaboration_id = s$collaboration_id, status = "online")
  expect_length(online, 2)
  extra <- root$createCollaboration(paste("R extra", s$tag), organization_ids = s$organizations[1])
  node <- root$createNode(extra$id, organization_id = s$organizations[[1]], name = paste0("r-extra-", s$tag))
  expect_true(nzchar(node$api_key))
  expect_equal(root$updateNode(node$id, name = paste0("r-renamed-", s$tag))$name, paste0("r-renamed-", s$tag))
  root$deleteNode(node$id)
  expect_error(root$getNode(node$id), class = "federa_not_found")
  root$deleteCollaboration(extra$id)
})

test_that("the session token is refreshed with the refresh token and requests go on working", {
  client <- login("researcher")
  private <- client$.__enclos_env__$private
  before <- private$access_token
  private$refresh()
  expect_false(identical(private$access_token, before))
  expect_equal(client$getUser(client$whoami$id)$id, client$whoami$id)
  private$refresh_token <- "not-a-token"
  expect_error(private$refresh(), "could not be refreshed; log in again", class = "federa_authentication_error")
  expect_error(client$getUsers(), "not logged in", class = "federa_authentication_error")
})

test_that("addresses in vtg's and Python's forms both work; no server gives federa_connection_failed", {
  s <- test_settings()
  port <- sub("^.*:", "", s$host)
  client <- Client$new("127.0.0.1", port = port, api_path = "api/")
  expect_equal(paste0(client$host, client$api_path), paste0(s$host, "/api"))
  client$authenticate(s$researcher$username, s$researcher$password)
  expect_equal(client$whoami$username, s$researcher$username)
  # Port 1 on loopback: nothing listens there, the connection is refused at once.
  nowhere <- Client$new("http://127.0.0.1", port = 1)
  expect_error(nowhere$authenticate("root", "whatever-Pass-1!"), "cannot connect to the Federa server at http://127.0.0.1",
               class = "federa_connection_failed")
})

test_that("logout ends the session on the server; without the server it forgets the tokens and says so", {
  s <- test_settings()
  client <- login("researcher")
  private <- client$.__enclos_env__$private
  access <- private$access_token
  refresh <- private$refresh_token
  expect_true(client$logout())
  expect_null(client$whoami)
  expect_error(client$getUsers(), "not logged in", class = "federa_authentication_error")
  # The old tokens are refused by the server: the session is over there too.
  bearer <- function(token) httr::add_headers(Authorization = paste("Bearer", token))
  expect_equal(httr::status_code(httr::GET(paste0(s$host, s$api_path, "/user"), bearer(access))), 401L)
  expect_equal(httr::status_code(httr::POST(paste0(s$host, s$api_path, "/token/refresh"), bearer(refresh))), 401L)

  live <- login("researcher")
  nowhere <- Client$new("http://127.0.0.1", port = 1)
  nowhere_private <- nowhere$.__enclos_env__$private
  nowhere_private$access_token <- live$.__enclos_env__$private$access_token
  nowhere_private$refresh_token <- live$.__enclos_env__$private$refresh_token
  expect_warning(ended <- nowhere$logout(),
                 "logged out locally: the tokens are forgotten, but the server could not be reached")
  expect_false(ended)
  expect_null(nowhere_private$access_token)
  expect_null(nowhere_private$refresh_token)
})
