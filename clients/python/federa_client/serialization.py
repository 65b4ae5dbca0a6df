"""Task input and result payloads as bytes (docs/container-environment.md#input-and-output).

Input written by the client is always ``b"json." + JSON text`` (UTF-8). vantage6 3.x algorithm images read that
format, and Federa's algorithm tools read nothing else.

Reading (results): when a ``.`` occurs within the first 10 bytes and the text before it is ``json`` (any case),
the rest is JSON. Nothing else is interpreted: a ``pickle.`` payload, a bare pickle (vantage6's "legacy"
format) or any other format is handed back as the raw bytes with an :class:`UnsafePayloadWarning`.

The client never unpickles: unpickling runs code chosen by whoever wrote the bytes, i.e. any node or algorithm
of the collaboration (see docs/security.md, "Clients: nothing from the wire is executed").
"""

from __future__ import annotations

import json
import warnings
from typing import Any

__all__ = ["DATA_FORMATS", "UnsafePayloadWarning", "serialize", "deserialize", "detect_format", "read_payload"]

#: Accepted values of ``data_format`` when writing input.
DATA_FORMATS = ("json",)
#: Formats of vantage6 3.x that carry a Python pickle; refused with a clear message.
PICKLE_FORMATS = ("pickle", "legacy")

_PREFIX_WINDOW = 10


class UnsafePayloadWarning(UserWarning):
    """A payload was not in a format that can be read without running code (a pickle, or an unknown format);
    the raw bytes were returned instead of a value."""


def serialize(value: Any, data_format: str = "json") -> bytes:
    """Turn ``value`` into payload bytes: ``json.`` + JSON.

    ``data_format`` ``"pickle"`` and ``"legacy"`` (vantage6's default) are refused: a pickle runs code in the
    algorithm container that reads it, so Federa neither writes nor reads one.
    """
    fmt = (data_format or "").lower()
    if fmt in PICKLE_FORMATS:
        raise ValueError(
            f"data_format {data_format!r} (a Python pickle) is not supported: unpickling runs code, so Federa's "
            "algorithm tools refuse pickled input. Use data_format='json' (vantage6 3.x algorithms read it too)")
    if fmt != "json":
        raise ValueError(f"unknown data_format {data_format!r}; use 'json'")
    try:
        text = json.dumps(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the input cannot be written as JSON ({exc}); send lists, dicts, numbers and "
                         "strings") from None
    return b"json." + text.encode("utf-8")


def detect_format(payload: bytes) -> str:
    """``"json"`` or ``"pickle"`` for a prefixed payload, ``"legacy"`` when there is no format prefix (a
    vantage6 3.x bare pickle, or anything else), or the prefix itself for another format (e.g. ``"xml"``).

    The prefix is the text before a ``.`` within the first 10 bytes (the bytes after the ``.`` may be binary).
    """
    head = bytes(payload[:_PREFIX_WINDOW])
    dot = head.find(b".")
    if dot <= 0:
        return "legacy"
    name = head[:dot]
    if not name.isalpha() or not name.isascii():
        return "legacy"
    return name.decode("ascii").lower()


def read_payload(payload: bytes, what: str = "the payload") -> Any:
    """Read payload bytes: the value of a ``json.`` payload; for anything else the raw bytes, with an
    :class:`UnsafePayloadWarning` naming ``what`` and its format. Never unpickles.

    :raises ValueError: a ``json.`` payload that is not valid UTF-8 JSON.
    """
    payload = bytes(payload)
    fmt = detect_format(payload)
    if fmt == "json":
        return json.loads(payload[len("json."):].decode("utf-8"))
    if fmt in PICKLE_FORMATS:
        reason = ("a Python pickle" + (" without a format prefix (vantage6's legacy format)" if fmt == "legacy"
                                        else ""))
        warnings.warn(
            f"{what} is {reason}; Federa never unpickles data from the server because that runs code chosen by "
            "the sender. The raw bytes are returned. Ask the algorithm for JSON output "
            "(input key 'output_format': 'json', which this client adds by default)",
            UnsafePayloadWarning, stacklevel=3)
    else:
        warnings.warn(f"{what} is in the unknown format {fmt!r}; the raw bytes are returned",
                      UnsafePayloadWarning, stacklevel=3)
    return payload


def deserialize(payload: bytes) -> Any:
    """Same as :func:`read_payload` (kept for callers of earlier versions)."""
    return read_payload(payload)
