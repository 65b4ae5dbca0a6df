# End-to-end encryption, byte for byte the format of docs/encryption.md (the same as the TypeScript and Python
# implementations and vantage6 3.x): base64(RSA-PKCS#1-v1.5(K)) "$" base64(IV) "$" base64(AES-256-CTR(K, IV, data)).

AES_KEY_BYTES <- 32L
IV_BYTES <- 16L

b64_encode <- function(data) {
  if (length(data) == 0L) return("")
  openssl::base64_encode(data, linebreaks = FALSE)
}

# Lenient standard base64: everything after the first "=" and every character outside the alphabet is ignored,
# missing padding is accepted (as in the other implementations).
b64_decode <- function(text, what = "the data") {
  text <- sub("=.*$", "", as.character(text))
  text <- gsub("[^A-Za-z0-9+/]", "", text)
  n <- nchar(text)
  if (n %% 4L == 1L) {
    federa_stop("encryption_error", sprintf(
      "%s is not valid base64: %d data characters cannot encode whole bytes", what, n))
  }
  if (n == 0L) return(raw(0))
  text <- paste0(text, strrep("=", (4L - n %% 4L) %% 4L))
  openssl::base64_decode(text)
}

#' The wire form of a public key: standard base64 of its SubjectPublicKeyInfo PEM text.
#' @param key an openssl private key, or the path of a PEM private key file.
#' @export
public_key_base64 <- function(key) {
  if (is.character(key)) key <- read_private_key(key)
  b64_encode(charToRaw(openssl::write_pem(key$pubkey)))
}

#' Generate an RSA key (exponent 65537) and write it as unencrypted PKCS#1 PEM, readable by its owner only.
#' Refuses to replace an existing file unless overwrite = TRUE. Returns the key invisibly.
#' @export
create_private_key <- function(path, bits = 4096L, overwrite = FALSE) {
  path <- path.expand(path)
  if (file.exists(path) && !isTRUE(overwrite)) {
    federa_stop("encryption_error", sprintf("%s already exists; pass overwrite = TRUE to replace it", path))
  }
  key <- openssl::rsa_keygen(bits = as.integer(bits))
  old <- Sys.umask("077")
  on.exit(Sys.umask(old), add = TRUE)
  openssl::write_pkcs1(key, path = path)
  Sys.chmod(path, "0600", use_umask = FALSE)
  invisible(key)
}

read_private_key <- function(path) {
  path <- path.expand(as.character(path))
  text <- tryCatch(readLines(path, warn = FALSE), error = function(e) NULL, warning = function(w) NULL)
  if (is.null(text)) federa_stop("encryption_error", sprintf("cannot read the private key file %s", path))
  if (any(grepl("ENCRYPTED", text, fixed = TRUE))) {
    federa_stop("encryption_error", sprintf(
      "%s: the private key is protected by a passphrase; use an unencrypted PEM key", path))
  }
  no_password <- function(...) stop("no passphrase")
  key <- tryCatch(openssl::read_key(paste(text, collapse = "\n"), password = no_password),
                  error = function(e) NULL)
  if (is.null(key)) federa_stop("encryption_error", sprintf("%s: the private key is not a readable PEM private key", path))
  if (!inherits(key, "rsa")) federa_stop("encryption_error", sprintf("%s: end-to-end encryption needs an RSA private key", path))
  key
}

read_public_key_b64 <- function(public_key) {
  if (is.null(public_key) || !nzchar(trimws(public_key))) {
    federa_stop("encryption_error", paste0(
      "the recipient organization has no public key; its node must upload one before it can receive ",
      "encrypted data"))
  }
  pem <- tryCatch(rawToChar(b64_decode(public_key, "the public key")), error = function(e) "")
  key <- tryCatch(openssl::read_pubkey(pem), error = function(e) NULL)
  if (is.null(key)) {
    federa_stop("encryption_error",
                "the recipient public key is not base64 of a PEM public key (\"-----BEGIN PUBLIC KEY-----\")")
  }
  if (!inherits(key, "rsa")) federa_stop("encryption_error", "the recipient public key is not an RSA key")
  key
}

#' Encrypt raw bytes for the holder of a public key (given in wire form, base64 of PEM).
#' With public_key = NULL (unencrypted collaborations) the result is the plain base64 of the bytes.
#' @export
encrypt_bytes <- function(data, public_key) {
  if (is.character(data)) data <- charToRaw(enc2utf8(data))
  if (is.null(public_key)) return(b64_encode(data))
  pub <- read_public_key_b64(public_key)
  key <- openssl::rand_bytes(AES_KEY_BYTES)
  iv <- openssl::rand_bytes(IV_BYTES)
  ciphertext <- if (length(data)) as.vector(openssl::aes_ctr_encrypt(data, key, iv)) else raw(0)
  block <- openssl::rsa_encrypt(key, pub)
  paste(b64_encode(block), b64_encode(iv), b64_encode(ciphertext), sep = "$")
}

#' Decrypt a string made by any Federa or vantage6 party with the given private key (openssl key or file path).
#' With key = NULL the string is taken as plain base64 (unencrypted collaborations).
#' @export
decrypt_string <- function(data, key) {
  if (is.null(key)) return(b64_decode(data, "the unencrypted payload"))
  if (is.character(key)) key <- read_private_key(key)
  parts <- regmatches(data, gregexpr("$", data, fixed = TRUE), invert = TRUE)[[1]]
  if (length(parts) != 3L) {
    federa_stop("encryption_error", paste0(
      "encrypted data must be three base64 parts separated by \"$\" (key block, IV, ciphertext); got ",
      length(parts), " part(s)", if (length(parts) == 1L) " (is this collaboration unencrypted?)" else ""))
  }
  message_key <- unwrap_message_key(parts[1], parts[2], key)
  ciphertext <- b64_decode(parts[3], "the ciphertext (third part)")
  if (!length(ciphertext)) return(raw(0))
  as.vector(openssl::aes_ctr_decrypt(ciphertext, message_key$aes, message_key$iv))
}

# The AES key and IV of one message, from its first two parts (base64 text), with the private key: what
# decrypt_string and the output stream reader (result-output.R) share.
unwrap_message_key <- function(block_part, iv_part, key) {
  block <- b64_decode(block_part, "the key block (first part)")
  iv <- b64_decode(iv_part, "the IV (second part)")
  if (length(iv) != IV_BYTES) {
    federa_stop("encryption_error", sprintf("the IV (second part) is %d bytes; expected %d", length(iv), IV_BYTES))
  }
  expected <- as.integer(key$size) %/% 8L
  if (length(block) != expected) {
    federa_stop("encryption_error", sprintf(paste0(
      "the key block (first part) is %d bytes; this %d-bit private key expects %d (was the data encrypted ",
      "for another organization's key?)"), length(block), expected * 8L, expected))
  }
  aes <- tryCatch(openssl::rsa_decrypt(block, key), error = function(e) raw(0))
  if (length(aes) != AES_KEY_BYTES) {
    federa_stop("encryption_error", sprintf(paste0(
      "the key block (first part) does not decrypt to a %d-byte AES key with this private key (encrypted ",
      "for another organization's key, or corrupted)"), AES_KEY_BYTES))
  }
  list(aes = aes, iv = iv)
}

#' The first line of a sealed run log (docs/run-logs.md#encrypted-collaborations), as the other clients write it.
SEALED_LOG_HEADER <- paste0("[federa sealed log v1] encrypted for the organization that created the task; a Federa ",
                            "client with its private key shows it (docs/run-logs.md)\n")

#' The plain text of a run's log. In an encrypted collaboration the log is sealed for the organization that created
#' the task: the header, then one "sealed:<piece>" line per piece (each encrypted like a result), and the server's
#' notes as plain lines; each piece is decrypted with `key` (openssl key or file path). A plain log is returned as it
#' is. Raises federa_encryption_error without a key, or naming the line that does not decrypt with another key.
#' @export
open_sealed_log <- function(log, key) {
  if (is.null(log) || !startsWith(log, SEALED_LOG_HEADER)) return(log)
  if (is.null(key)) {
    federa_stop("encryption_error", paste0(
      "this run's log is encrypted for the organization that created the task: call ",
      "client$setupEncryption('<private key file of that organization>') first"))
  }
  if (is.character(key)) key <- read_private_key(key)
  body <- substring(log, nchar(SEALED_LOG_HEADER) + 1L)
  lines <- strsplit(body, "\n", fixed = TRUE)[[1]]
  if (!endsWith(body, "\n")) lines <- utils::head(lines, -1L) # a line not yet whole
  out <- vapply(seq_along(lines), function(i) {
    line <- lines[[i]]
    if (!startsWith(line, "sealed:")) return(paste0(line, "\n"))
    raw <- tryCatch(decrypt_string(substring(line, 8L), key), federa_error = function(e) {
      federa_stop("encryption_error", sprintf(paste0(
        "line %d of this run's log does not decrypt with this private key (%s): the log is encrypted for the ",
        "organization that created the task; use that organization's private key"), i + 1L, conditionMessage(e)))
    })
    text <- rawToChar(raw)
    Encoding(text) <- "UTF-8"
    text
  }, "")
  paste(out, collapse = "")
}
