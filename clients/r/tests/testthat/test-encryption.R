# End-to-end encryption: the format of docs/encryption.md, byte for byte compatible with Python and TypeScript.

test_that("R encrypts and decrypts its own data, including empty and non-ASCII payloads", {
  key <- test_settings()$keys[[1]]
  pub <- public_key_base64(key)
  for (text in c("", "hello", "gemiddelde leeftijd: 42 \u00e9\u20ac")) {
    data <- charToRaw(enc2utf8(text))
    wire <- encrypt_bytes(data, pub)
    parts <- strsplit(paste0(wire, "|"), "$", fixed = TRUE)[[1]]
    expect_length(parts, 3)
    expect_equal(nchar(parts[1]), 344) # 256-byte key block of a 2048-bit key
    expect_equal(nchar(parts[2]), 24) # 16-byte IV
    expect_identical(decrypt_string(wire, key), data)
  }
})

test_that("the public key's wire form is the same as the Python client's", {
  key <- test_settings()$keys[[1]]
  py <- python_crypto("print(RSACryptor(sys.stdin.read().strip()).public_key_str)", key)
  expect_identical(public_key_base64(key), py)
})

test_that("R encrypts, Python decrypts", {
  key <- test_settings()$keys[[2]]
  plain <- serialize_payload(list(method = "partial_average", args = list("age"), note = "\u00e9"))
  wire <- encrypt_bytes(plain, public_key_base64(key))
  out <- python_crypto(paste0("req = json.loads(sys.stdin.read())\n",
                              "print(base64.b64encode(RSACryptor(req['key']).decrypt_str_to_bytes(req['data'])).decode())"),
                       jsonlite::toJSON(list(key = key, data = wire), auto_unbox = TRUE))
  expect_identical(openssl::base64_decode(out), plain)
})

test_that("Python encrypts, R decrypts", {
  key <- test_settings()$keys[[2]]
  plain <- charToRaw('json.{"average": 47.9, "by": "python"}')
  wire <- python_crypto(paste0("req = json.loads(sys.stdin.read())\n",
                               "c = RSACryptor(req['key'])\n",
                               "print(c.encrypt_bytes_to_str(base64.b64decode(req['plain']), c.public_key_str))"),
                        jsonlite::toJSON(list(key = key, plain = openssl::base64_encode(plain)), auto_unbox = TRUE))
  expect_identical(decrypt_string(wire, key), plain)
})

test_that("R encrypts, TypeScript decrypts; TypeScript encrypts, R decrypts", {
  key <- test_settings()$keys[[1]]
  plain <- charToRaw("json.[1,2,3]")
  wire <- encrypt_bytes(plain, public_key_base64(key))
  back <- ts_crypto(list(op = "decrypt", private_key_pem = key_pem(key), data = wire))
  expect_identical(openssl::base64_decode(back$plaintext_b64), plain)

  made <- ts_crypto(list(op = "encrypt", private_key_pem = key_pem(key), public_key_b64 = public_key_base64(key),
                         plaintext_b64 = openssl::base64_encode(plain)))
  expect_identical(decrypt_string(made$data, key), plain)
})

test_that("the shared test vector made by the TypeScript module decrypts in R", {
  fixtures <- repo_path("clients", "python", "tests", "fixtures")
  vector <- jsonlite::fromJSON(file.path(fixtures, "vector.json"), simplifyVector = FALSE)
  key <- file.path(fixtures, "TEST-ONLY-private-key.pem")
  expect_identical(decrypt_string(vector$ciphertext, key), openssl::base64_decode(vector$plaintext_b64))
  expect_identical(decrypt_string(vector$empty_plaintext_ciphertext, key), raw(0))
  expect_identical(public_key_base64(key), vector$public_key_b64)
})

test_that("bad ciphertexts and keys give federa_encryption_error naming the problem", {
  key <- test_settings()$keys[[1]]
  other <- test_settings()$keys[[2]]
  wire <- encrypt_bytes(charToRaw("secret"), public_key_base64(other))
  expect_error(decrypt_string("aGVsbG8=", key), "three base64 parts.*is this collaboration unencrypted", class = "federa_encryption_error")
  expect_error(decrypt_string(wire, key), "does not decrypt to a 32-byte AES key", class = "federa_encryption_error")
  parts <- strsplit(wire, "$", fixed = TRUE)[[1]]
  expect_error(decrypt_string(paste(parts[1], "AAAA", parts[3], sep = "$"), key), "IV \\(second part\\) is 3 bytes",
               class = "federa_encryption_error")
  expect_error(decrypt_string(paste("AAAA", parts[2], parts[3], sep = "$"), key), "key block \\(first part\\) is 3 bytes",
               class = "federa_encryption_error")
  expect_error(encrypt_bytes(charToRaw("x"), ""), "has no public key", class = "federa_encryption_error")
  missing <- tempfile(fileext = ".pem")
  expect_error(decrypt_string(wire, missing), "cannot read the private key file", class = "federa_encryption_error")
})

test_that("create_private_key writes an owner-only PKCS#1 key and refuses to overwrite", {
  path <- tempfile(fileext = ".pem")
  on.exit(unlink(path))
  create_private_key(path, bits = 2048)
  expect_match(readLines(path)[1], "BEGIN RSA PRIVATE KEY", fixed = TRUE)
  expect_equal(as.character(file.info(path)$mode), "600")
  expect_error(create_private_key(path, bits = 2048), "already exists", class = "federa_encryption_error")
  expect_identical(decrypt_string(encrypt_bytes(charToRaw("k"), public_key_base64(path)), path), charToRaw("k"))
})

test_that("payloads are json.-prefixed JSON; pickles are refused with a clear message", {
  expect_identical(rawToChar(serialize_payload(list(method = "m", args = list(1, "a")))), 'json.{"method":"m","args":[1,"a"]}')
  expect_equal(deserialize_payload(charToRaw('json.{"average":42.5,"v":[1,2]}')), list(average = 42.5, v = c(1, 2)))
  expect_error(deserialize_payload(charToRaw("pickle.\x80\x04")), "pickle format, which R cannot read",
               class = "federa_encryption_error")
  expect_error(deserialize_payload(as.raw(c(0x80, 0x04, 0x95))), "bare pickle", class = "federa_encryption_error")
})

test_that("a run log sealed by the TypeScript node opens in R; another key or none is a clear error", {
  key <- test_settings()$keys[[1]]
  note <- "[federa server] the live log of this run reached 1024 characters\n"
  pieces <- list("row 1\n", "h\u00e9llo row 2\n", "partial")
  sealed <- ts_crypto(list(op = "seal_log", private_key_pem = key_pem(key), public_key_b64 = public_key_base64(key),
                           pieces = pieces, note = note))$log
  expect_true(startsWith(sealed, SEALED_LOG_HEADER))
  expect_false(grepl("row", sealed, fixed = TRUE))
  expect_identical(open_sealed_log(sealed, key), paste0(paste(unlist(pieces), collapse = ""), note))
  expect_identical(open_sealed_log("a plain log\n", NULL), "a plain log\n")
  expect_error(open_sealed_log(sealed, test_settings()$keys[[2]]),
               "^line 2 of this run's log does not decrypt with this private key .*use that organization's private key$",
               class = "federa_encryption_error")
  expect_error(open_sealed_log(sealed, NULL), "setupEncryption", class = "federa_encryption_error")
})
