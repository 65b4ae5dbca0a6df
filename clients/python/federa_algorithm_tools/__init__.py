"""Tools for Federa (and vantage6 3.x) algorithm authors: standard library only.

``run(module)`` is the container's main program: it reads the input file, calls the requested method with the
data source loaded and writes the output file. ``AlgorithmClient`` lets a master algorithm create sub-tasks and
collect their results through the node's proxy.
"""
from .payload import decode_payload, encode_payload, detect_format
from .data import load_data, database_uri
from .client import AlgorithmClient
from .wrapper import run

__all__ = [
    "AlgorithmClient",
    "database_uri",
    "decode_payload",
    "detect_format",
    "encode_payload",
    "load_data",
    "run",
]
