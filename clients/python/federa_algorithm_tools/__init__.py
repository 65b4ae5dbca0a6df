"""Tools for Federa (and vantage6 3.x) algorithm authors.

``run(module)`` is the container's main program: it reads the input file, calls the requested method with the
data source loaded and writes the output file. ``docker_wrapper``/``auto_wrapper`` do the same with vantage6
3.x's arguments and a pandas ``DataFrame``. ``AlgorithmClient`` (also named ``ContainerClient``) lets a master
algorithm create sub-tasks and collect their results through the node's proxy. Only JSON is read and written:
nothing is ever unpickled (docs/security.md).
"""
from .payload import PayloadFormatError, UnsafePayloadWarning, decode_payload, encode_payload, detect_format
from .data import load_data, load_data_frame, database_uri
from .client import AlgorithmClient, SubTaskFailed
from .wrapper import auto_wrapper, docker_wrapper, run
from .util import error, info, warn

#: vantage6 3.x's name of the algorithm client.
ContainerClient = AlgorithmClient

__all__ = [
    "AlgorithmClient",
    "ContainerClient",
    "PayloadFormatError",
    "SubTaskFailed",
    "UnsafePayloadWarning",
    "auto_wrapper",
    "database_uri",
    "decode_payload",
    "detect_format",
    "docker_wrapper",
    "encode_payload",
    "error",
    "info",
    "load_data",
    "load_data_frame",
    "run",
    "warn",
]
