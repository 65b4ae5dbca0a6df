# Task input and result payloads (docs/client-r.md, "Data formats"): "json." followed by UTF-8 JSON. Payloads in
# other formats ("pickle.", or a bare pickle from a Python client) cannot be read in R and give a clear error.

json_text <- function(value) {
  as.character(jsonlite::toJSON(value, auto_unbox = TRUE, null = "null", na = "null", digits = NA,
                                dataframe = "rows", POSIXt = "ISO8601"))
}

from_json <- function(text) {
  jsonlite::fromJSON(text, simplifyVector = TRUE, simplifyDataFrame = FALSE, simplifyMatrix = FALSE)
}

#' Serialize an R value as a payload: raw bytes "json." + JSON.
#' @export
serialize_payload <- function(value) {
  c(charToRaw("json."), charToRaw(enc2utf8(json_text(value))))
}

payload_format <- function(payload) {
  head <- payload[seq_len(min(10L, length(payload)))]
  dot <- which(head == as.raw(0x2e))
  if (length(dot) == 0L || dot[1] == 1L) return("legacy")
  name <- tolower(rawToChar(head[seq_len(dot[1] - 1L)]))
  if (name %in% c("json", "pickle")) name else "legacy"
}

#' Read a payload (raw bytes) written by any Federa or vantage6 client, node or algorithm in JSON format.
#' @export
deserialize_payload <- function(payload, what = "the payload") {
  if (is.character(payload)) payload <- charToRaw(payload)
  if (length(payload) == 0L) return(NULL)
  fmt <- payload_format(payload)
  if (fmt != "json") {
    federa_stop("encryption_error", sprintf(paste0(
      "%s is in %s format, which R cannot read; ask for JSON (output_format = \"json\", ",
      "data_format = \"json\")"), what, if (fmt == "pickle") "pickle" else "a bare pickle (legacy)"))
  }
  text <- rawToChar(payload[-(1:5)])
  Encoding(text) <- "UTF-8"
  tryCatch(from_json(text), error = function(e) {
    federa_stop("encryption_error", sprintf("%s is not valid JSON after its \"json.\" prefix", what))
  })
}
