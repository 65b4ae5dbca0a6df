"""Input/output payloads: an optional format prefix (``json.`` or ``pickle.``) in the first bytes, else a bare
pickle (the legacy format of vantage6 clients)."""
import json
import pickle

FORMATS = ("json", "pickle")


def detect_format(data: bytes):
    """Return (format, body): format is 'json', 'pickle' or 'legacy' (bare pickle)."""
    head = data[:10]
    dot = head.find(b".")
    if dot > 0 and head[:dot].isalpha():
        name = head[:dot].decode("ascii").lower()
        if name not in FORMATS:
            raise ValueError(f"unknown payload format '{name}' (expected json or pickle)")
        return name, data[dot + 1:]
    return "legacy", data


def decode_payload(data: bytes):
    fmt, body = detect_format(data)
    if fmt == "json":
        return json.loads(body.decode("utf-8"))
    return pickle.loads(body)


def encode_payload(value, fmt=None) -> bytes:
    """``json.`` + JSON, ``pickle.`` + pickle, or a bare pickle when no format is given."""
    if fmt is None:
        return pickle.dumps(value)
    fmt = fmt.lower()
    if fmt == "json":
        return b"json." + json.dumps(value).encode("utf-8")
    if fmt == "pickle":
        return b"pickle." + pickle.dumps(value)
    raise ValueError(f"unknown output format '{fmt}' (expected json or pickle)")
