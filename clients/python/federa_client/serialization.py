"""Task input and result payloads as bytes (vantage6 3.x algorithm-container contract).

Input written by the client:

* ``data_format="json"`` (default): ``b"json." + JSON text`` (UTF-8).
* ``data_format="pickle"``: ``b"pickle." + pickle``.
* ``data_format="legacy"``: a bare pickle, the format of vantage6 3.x's Python client.

Reading (results, or inputs): when a ``.`` occurs within the first 10 bytes and the text before it is ``json`` or
``pickle`` (any case), the rest is in that format; otherwise the whole payload is a pickle.

Unpickling runs code chosen by whoever wrote the payload. Only read pickled results of algorithms and nodes you
trust, or ask algorithms for ``output_format: "json"``.
"""

from __future__ import annotations

import json
import pickle
from typing import Any

__all__ = ["DATA_FORMATS", "serialize", "deserialize", "detect_format"]

#: Accepted values of ``data_format``.
DATA_FORMATS = ("json", "pickle", "legacy")

_PREFIX_WINDOW = 10


def serialize(value: Any, data_format: str = "json") -> bytes:
    """Turn ``value`` into payload bytes in ``data_format`` (see the module documentation)."""
    fmt = (data_format or "").lower()
    if fmt == "json":
        try:
            text = json.dumps(value)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the input cannot be written as JSON ({exc}); use data_format='legacy'") from None
        return b"json." + text.encode("utf-8")
    if fmt == "pickle":
        return b"pickle." + pickle.dumps(value)
    if fmt == "legacy":
        return pickle.dumps(value)
    raise ValueError(f"unknown data_format {data_format!r}; use one of {', '.join(DATA_FORMATS)}")


def detect_format(payload: bytes) -> str:
    """``"json"`` or ``"pickle"`` for a prefixed payload, ``"legacy"`` for a bare pickle.

    The prefix is the text before a ``.`` within the first 10 bytes (the bytes after the ``.`` may be binary).
    """
    dot = bytes(payload[:_PREFIX_WINDOW]).find(b".")
    if dot < 0:
        return "legacy"
    try:
        name = bytes(payload[:dot]).decode("utf-8").lower()
    except UnicodeDecodeError:
        return "legacy"
    return name if name in ("json", "pickle") else "legacy"


def deserialize(payload: bytes) -> Any:
    """Read payload bytes written in any of the formats (see the module documentation)."""
    payload = bytes(payload)
    fmt = detect_format(payload)
    if fmt == "json":
        return json.loads(payload[len("json."):].decode("utf-8"))
    if fmt == "pickle":
        return pickle.loads(payload[len("pickle."):])
    return pickle.loads(payload)
