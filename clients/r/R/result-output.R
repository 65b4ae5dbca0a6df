# A run's output read as a stream (docs/large-results.md, docs/client-r.md "Large outputs"): the text of
# GET /result/{id}/output arrives in pieces; each piece is hashed (SHA-256, checked against x-federa-sha256 at the
# end), base64-decoded and AES-CTR-deciphered as it comes (docs/encryption.md#streams), and its plaintext handed to
# a sink. Nothing here holds the output whole; only readResultOutput() collects it, on purpose.

# How much of the text is looked at to tell an encrypted output ("EK$IV$...") from a base64 one (as the other clients).
OUTPUT_PEEK_CHARS <- 4096L
# The longest first two parts accepted (an 8192-bit key block and its IV take 1,400 characters).
OUTPUT_MAX_HEADER_CHARS <- 4096L
# How much of an error answer is kept to read the server's explanation from.
ERROR_BODY_MAX <- 65536L
# Each piece leaves a few short-lived vectors behind; R would let them pile up to its collection threshold (tens of
# MB) before collecting them. A young-generation collection every MiB of text keeps the reader's memory flat
# (docs/client-r.md#large-outputs has the figures); it costs nothing measurable.
COLLECT_EVERY_BYTES <- 1048576
# What curl says when a download never reached the server (refused, unknown host, no connection in time, TLS
# failed); anything else that stops a download happens after the server was reached: the download broke off.
NOT_REACHED <- paste("failed to connect", "couldn't connect", "could not connect", "resolve", "connection refused",
                     "connection timed out", "ssl connect", sep = "|")

DOLLAR <- as.raw(0x24)
BASE64_CHARS <- local({
  ok <- logical(256)
  ok[as.integer(charToRaw(paste0("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"))) + 1L] <- TRUE
  ok
})

# curl (5.x) leaves the connection of a download whose opening failed (server not reached, head cut short) open
# for the garbage collector, which later warns "closing unused connection" wherever R happens to be, as if the
# caller had leaked it. It is closed here once the download failed. R is single-threaded: no other download of
# the same URL is under way in this session.
close_leaked_connection <- function(url) {
  for (n in getAllConnections()) {
    if (n < 3L) next
    con <- tryCatch(getConnection(n), error = function(e) NULL)
    if (!is.null(con) && identical(summary(con)$description, url)) try(close(con), silent = TRUE)
  }
}

# An incremental SHA-256 of the text. openssl keeps a digest open across pieces (its md_init/md_feed/md_final, the
# functions behind sha256(<connection>)); an openssl without them gets the text written to a temporary file that
# sha256(file()) reads at the end, so memory stays flat either way.
text_hasher <- function() {
  ns <- asNamespace("openssl")
  if (all(vapply(c("md_init", "md_feed", "md_final"), exists, logical(1), envir = ns, inherits = FALSE))) {
    md <- get("md_init", envir = ns)("sha256")
    feed <- get("md_feed", envir = ns)
    final <- get("md_final", envir = ns)
    return(list(feed = function(bytes) invisible(feed(md, bytes)),
                hex = function() paste(as.character(final(md)), collapse = ""),
                close = function() invisible(NULL)))
  }
  copy <- tempfile("federa-output-")
  con <- file(copy, "wb")
  list(feed = function(bytes) writeBin(bytes, con),
       hex = function() {
         close(con)
         con <<- NULL
         paste(as.character(unclass(openssl::sha256(file(copy)))), collapse = "")
       },
       close = function() {
         if (!is.null(con)) close(con)
         unlink(copy)
       })
}

# Lenient base64 of a stream (as b64_decode): bytes outside the alphabet are skipped, the first "=" ends it.
base64_stream <- function() {
  rest <- raw(0)
  ended <- FALSE
  list(
    push = function(bytes) {
      if (ended) return(raw(0))
      # grepRaw looks without making a vector per byte: a piece of plain base64 (the usual case) is not copied.
      eq <- grepRaw("=", bytes, fixed = TRUE)
      if (length(eq)) {
        ended <<- TRUE
        bytes <- bytes[seq_len(eq - 1L)]
      }
      if (length(grepRaw("[^A-Za-z0-9+/]", bytes))) bytes <- bytes[BASE64_CHARS[as.integer(bytes) + 1L]]
      data <- if (length(rest)) c(rest, bytes) else bytes
      whole <- length(data) - length(data) %% 4L
      rest <<- data[seq_len(length(data) - whole) + whole]
      if (!whole) return(raw(0))
      jsonlite::base64_dec(if (whole == length(data)) data else data[seq_len(whole)])
    },
    end = function() {
      n <- length(rest)
      if (n %% 4L == 1L) {
        federa_stop("encryption_error", paste0(
          "the ciphertext (third part) is not valid base64: its data characters cannot encode whole bytes"))
      }
      if (!n) return(raw(0))
      jsonlite::base64_dec(c(rest, charToRaw(strrep("=", (4L - n %% 4L) %% 4L))))
    })
}

# The 16-byte AES-CTR counter block `iv` advanced by `blocks` (a 128-bit big-endian number, as OpenSSL, Node.js
# and Python's cryptography count).
counter_add <- function(iv, blocks) {
  v <- as.numeric(as.integer(iv))
  carry <- blocks
  i <- length(v)
  while (carry > 0 && i >= 1L) {
    digit <- v[i] + carry %% 256
    v[i] <- digit %% 256
    carry <- carry %/% 256 + digit %/% 256
    i <- i - 1L
  }
  as.raw(v)
}

# AES-256-CTR deciphered a piece at a time: whole 16-byte blocks as they come, each piece with the counter of its
# first block; the last partial block at the end.
ctr_stream <- function(aes, iv) {
  pending <- raw(0)
  done_blocks <- 0
  decipher <- function(bytes) {
    out <- as.vector(openssl::aes_ctr_decrypt(bytes, aes, counter_add(iv, done_blocks)))
    done_blocks <<- done_blocks + length(bytes) %/% 16L
    out
  }
  list(
    update = function(bytes) {
      data <- if (length(pending)) c(pending, bytes) else bytes
      whole <- length(data) - length(data) %% 16L
      pending <<- data[seq_len(length(data) - whole) + whole]
      if (!whole) return(raw(0))
      decipher(if (whole == length(data)) data else data[seq_len(whole)])
    },
    final = function() {
      if (!length(pending)) return(raw(0))
      out <- decipher(pending)
      pending <<- raw(0)
      out
    })
}

# The text of an output turned into its plaintext as it comes. `key_for(encrypted)` gives the private key for an
# encrypted text (raising when there is none) and is asked once, after the first OUTPUT_PEEK_CHARS bytes;
# `sink(raw)` gets each piece of plaintext. $feed(piece) for every piece of text, $finish() after the last.
output_decoder <- function(key_for, sink) {
  peeked <- list()
  peeked_bytes <- 0L
  mode <- NULL # NULL (peeking), "header" (reading the first two parts), "body"
  header <- raw(0)
  base64 <- base64_stream()
  cipher <- NULL
  emit <- function(plain) if (length(plain)) sink(plain)
  body <- function(text) {
    plain <- base64$push(text)
    emit(if (is.null(cipher) || !length(plain)) plain else cipher$update(plain))
  }
  no_header <- function() {
    parts <- sum(header[seq_len(min(length(header), OUTPUT_MAX_HEADER_CHARS + 1L))] == DOLLAR) + 1L
    federa_stop("encryption_error", sprintf(paste0(
      "encrypted data must be three base64 parts separated by \"$\" (key block, IV, ciphertext); got %d ",
      "part(s)"), parts))
  }
  route <- function(text) {
    if (identical(mode, "body")) return(body(text))
    header <<- c(header, text)
    dollars <- which(header == DOLLAR)
    if (length(dollars) < 2L) {
      if (length(header) > OUTPUT_MAX_HEADER_CHARS) no_header()
      return(invisible(NULL))
    }
    first <- dollars[1]
    second <- dollars[2]
    part <- function(bytes) rawToChar(bytes[bytes != as.raw(0)]) # a NUL byte would end the text; base64 skips it anyway
    message_key <- unwrap_message_key(part(header[seq_len(first - 1L)]),
                                      part(header[seq_len(second - first - 1L) + first]), key)
    cipher <<- ctr_stream(message_key$aes, message_key$iv)
    rest <- header[seq_len(length(header) - second) + second]
    header <<- raw(0)
    mode <<- "body"
    body(rest)
  }
  key <- NULL
  decide <- function() {
    head <- if (length(peeked)) do.call(c, peeked) else raw(0)
    peeked <<- list()
    encrypted <- any(head[seq_len(min(length(head), OUTPUT_PEEK_CHARS))] == DOLLAR)
    key <<- key_for(encrypted)
    mode <<- if (encrypted) "header" else "body"
    route(head)
  }
  list(
    feed = function(text) {
      if (!is.null(mode)) return(route(text))
      peeked[[length(peeked) + 1L]] <<- text
      peeked_bytes <<- peeked_bytes + length(text)
      if (peeked_bytes >= OUTPUT_PEEK_CHARS) decide()
      invisible(NULL)
    },
    finish = function() {
      if (is.null(mode)) decide()
      if (identical(mode, "header")) no_header()
      last <- base64$end()
      if (!is.null(cipher)) last <- c(if (length(last)) cipher$update(last) else raw(0), cipher$final())
      emit(last)
    })
}

# GET /result/{id}/output as a stream into output_decoder(key_for, sink); `self`/`private` are the Client's. Raises
# Federa conditions with plain messages: the server's refusal, a download that broke off, a text that arrived
# altered (its SHA-256), one that does not decrypt. Returns the number of plaintext bytes handed to the sink.
stream_output <- function(self, private, id, sink) {
  id <- as_id(id)
  endpoint <- sprintf("/result/%d/output", id)
  what <- sprintf("the output of result %d", id)
  private$need_login()
  refreshed <- FALSE
  repeat {
    url <- private$url(endpoint)
    handle <- httr::handle(url) # a handle of its own: its HTTP status is read when the first bytes arrive
    status <- NULL
    error_body <- raw(0)
    received <- 0
    since_collect <- 0
    plain_bytes <- 0
    failure <- NULL
    hasher <- text_hasher()
    decoder <- output_decoder(function(encrypted) {
      if (!encrypted) return(NULL)
      if (is.null(private$key)) {
        federa_stop("encryption_error", sprintf(paste0(
          "%s is encrypted: call client$setupEncryption('<private key file of the organization that created the ",
          "task>') first, then read it again"), what))
      }
      private$key
    }, function(plain) {
      plain_bytes <<- plain_bytes + length(plain)
      sink(plain)
    })
    fail <- function(e) {
      failure <<- e
      stop(e)
    }
    decrypt_failed <- function(e) {
      if (inherits(e, "federa_encryption_error") && !startsWith(conditionMessage(e), what)) {
        e <- federa_condition("encryption_error", sprintf("cannot decrypt %s: %s", what, conditionMessage(e)))
      }
      fail(e)
    }
    on_piece <- function(piece) {
      if (is.null(status)) status <<- curl::handle_data(handle$handle)$status_code
      if (status != 200L) {
        if (length(error_body) < ERROR_BODY_MAX) error_body <<- c(error_body, piece)
        return(invisible(length(piece)))
      }
      received <<- received + length(piece)
      hasher$feed(piece)
      tryCatch(decoder$feed(piece), federa_error = decrypt_failed, error = fail)
      since_collect <<- since_collect + length(piece)
      if (since_collect >= COLLECT_EVERY_BYTES) {
        since_collect <<- 0
        invisible(gc(verbose = FALSE, full = FALSE))
      }
      invisible(length(piece))
    }
    headers <- c(Accept = "application/octet-stream", Authorization = paste("Bearer", private$access_token))
    response <- tryCatch(
      # No whole-request time limit (a large output takes minutes): the download is given up when no byte moved
      # for `timeout` seconds, as the server does (docs/large-results.md#limits).
      httr::GET(url, httr::add_headers(.headers = headers), httr::write_stream(on_piece), handle = handle,
                httr::config(connecttimeout = self$timeout, low_speed_limit = 1L, low_speed_time = self$timeout)),
      error = function(e) {
        hasher$close()
        close_leaked_connection(url)
        if (!is.null(failure)) stop(failure)
        # curl may take in the answer's head, some bytes and the cut all while the connection opens, before one
        # byte reaches on_piece (and httr clears the handle's status): only curl's words tell a server never reached
        # from a download that broke off.
        if (is.null(status) && received == 0 && grepl(NOT_REACHED, conditionMessage(e), ignore.case = TRUE)) {
          host <- sub("^(https?://[^/]+).*$", "\\1", url)
          federa_stop("connection_failed", sprintf(paste0(
            "cannot download %s from the Federa server at %s (%s); is the server running and are host and ",
            "port right?"), what, host, conditionMessage(e)))
        }
        federa_stop("connection_failed", sprintf(
          "the download of %s broke off after %.0f bytes (%s); nothing was kept: read it again", what, received,
          conditionMessage(e)))
      })
    status <- httr::status_code(response)
    if (status == 200L) break
    hasher$close()
    response$content <- error_body
    if (status == 401L && !refreshed) {
      data <- response_body(response)
      if (identical(data$code, "token_expired") || grepl("expired", tolower(server_text(data) %||% ""), fixed = TRUE)) {
        private$refresh()
        refreshed <- TRUE
        next
      }
    }
    raise_for("GET", endpoint, response)
  }
  expected_size <- suppressWarnings(as.numeric(httr::headers(response)[["content-length"]]))
  if (length(expected_size) == 1L && !is.na(expected_size) && received != expected_size) {
    hasher$close()
    federa_stop("connection_failed", sprintf(
      "the download of %s broke off after %.0f of %.0f bytes; nothing was kept: read it again", what, received,
      expected_size))
  }
  expected <- httr::headers(response)[["x-federa-sha256"]]
  got <- hasher$hex()
  hasher$close()
  if (length(expected) == 1L && nzchar(expected) && !identical(tolower(expected), got)) {
    federa_stop("encryption_error", sprintf(paste0(
      "%s arrived altered or cut short (SHA-256 %s, the server's is %s); nothing was kept: read it again"),
      what, got, expected), code = "checksum_mismatch")
  }
  tryCatch(decoder$finish(), federa_error = function(e) {
    if (inherits(e, "federa_encryption_error") && !startsWith(conditionMessage(e), what)) {
      federa_stop("encryption_error", sprintf("cannot decrypt %s: %s", what, conditionMessage(e)))
    }
    stop(e)
  })
  plain_bytes
}

# Writes the plaintext of the output of result `id` to `path` through a temporary file beside it, which becomes
# `path` only once the output arrived whole, checked and decrypted; on any failure it is removed.
save_output <- function(self, private, id, path, overwrite) {
  if (!is.character(path) || length(path) != 1L || is.na(path) || !nzchar(path)) {
    federa_stop("validation_error", "path must be one file name")
  }
  path <- path.expand(path)
  folder <- dirname(path)
  if (!dir.exists(folder)) federa_stop("validation_error", sprintf("the folder %s does not exist", folder))
  if (dir.exists(path)) federa_stop("validation_error", sprintf("%s is a folder; give the name of a file", path))
  if (file.exists(path) && !isTRUE(overwrite)) {
    federa_stop("validation_error", sprintf("%s already exists; pass overwrite = TRUE to replace it", path))
  }
  partial <- paste0(path, ".", paste(as.character(openssl::rand_bytes(4)), collapse = ""), ".part")
  old <- Sys.umask("077")
  con <- tryCatch(file(partial, "wb"), error = function(e) NULL, warning = function(w) NULL)
  Sys.umask(old)
  if (is.null(con)) federa_stop("validation_error", sprintf("cannot write a file in %s", folder))
  kept <- FALSE
  on.exit({
    if (!is.null(con)) close(con)
    if (!kept) unlink(partial)
  }, add = TRUE)
  size <- stream_output(self, private, id, function(plain) {
    tryCatch(writeBin(plain, con), error = function(e) {
      federa_stop("validation_error", sprintf("cannot write the output to %s (%s); nothing was kept", path,
                                              conditionMessage(e)))
    })
  })
  close(con)
  con <- NULL
  if (!file.rename(partial, path)) {
    federa_stop("validation_error", sprintf("cannot move the finished output to %s; nothing was kept", path))
  }
  kept <- TRUE
  size
}
