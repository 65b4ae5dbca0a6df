"""Input/output payloads: a format prefix (``json.``, ``pickle.``) in the first bytes, or none (vantage6's legacy
bare pickle).

These tools read and write JSON only. A pickle is never unpickled: unpickling runs code chosen by whoever wrote
the bytes (the researcher for input, another node's algorithm for sub-task results). See docs/security.md,
"Clients: nothing from the wire is executed".
"""
import json
import warnings

FORMATS = ("json", "pickle")


class PayloadFormatError(ValueError):
    """A payload that these tools refuse to read (a pickle, an unknown format)."""


class UnsafePayloadWarning(UserWarning):
    """A sub-task result was not JSON; its raw bytes were returned."""


def detect_format(data: bytes):
    """Return (format, body): format is 'json', 'pickle', another prefix name, or 'legacy' (no prefix)."""
    head = bytes(data[:10])
    dot = head.find(b".")
    if dot > 0 and head[:dot].isalpha() and head[:dot].isascii():
        return head[:dot].decode("ascii").lower(), bytes(data[dot + 1:])
    return "legacy", bytes(data)


def _refusal(fmt: str, what: str) -> str:
    if fmt == "legacy":
        return (f"{what} has no format prefix: it is a Python pickle (vantage6's legacy format), which these tools "
                "never unpickle because that runs code chosen by the sender; send it as 'json.' + JSON "
                "(data_format='json')")
    if fmt == "pickle":
        return (f"{what} is a pickle ('pickle.' prefix), which these tools never unpickle because that runs code "
                "chosen by the sender; send it as 'json.' + JSON (data_format='json')")
    return f"{what} is in the unknown format '{fmt}' (expected 'json.' + JSON)"


def decode_payload(data: bytes, what: str = "the payload"):
    """The value of a ``json.`` payload. Raises :class:`PayloadFormatError` for any other format."""
    fmt, body = detect_format(data)
    if fmt != "json":
        raise PayloadFormatError(_refusal(fmt, what))
    return json.loads(body.decode("utf-8"))


def read_result(data: bytes, what: str = "a sub-task result"):
    """Like :func:`decode_payload`, but a payload in another format gives its raw bytes with an
    :class:`UnsafePayloadWarning` (for results of other nodes' algorithms)."""
    fmt, body = detect_format(data)
    if fmt == "json":
        return json.loads(body.decode("utf-8"))
    warnings.warn(_refusal(fmt, what) + "; the raw bytes are returned", UnsafePayloadWarning, stacklevel=2)
    return bytes(data)


def _jsonable(value):
    """``json.dumps`` default: pandas objects, numpy scalars and arrays, sets and tuples become JSON values."""
    to_json = getattr(value, "to_json", None)
    if callable(to_json) and type(value).__module__.startswith("pandas"):
        return json.loads(to_json())
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return value.tolist()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"an algorithm result of type {type(value).__name__} cannot be written as JSON")


def encode_payload(value, fmt=None) -> bytes:
    """``json.`` + JSON of ``value``. ``fmt`` may be ``None`` or ``"json"``; ``"pickle"`` is refused."""
    name = (fmt or "json").lower()
    if name == "pickle":
        raise PayloadFormatError("pickle output is not written by these tools (a pickle runs code in the reader); "
                                 "use output_format 'json'")
    if name != "json":
        raise PayloadFormatError(f"unknown output format '{fmt}' (expected json)")
    return b"json." + json.dumps(value, default=_jsonable).encode("utf-8")
