"""Federa Python client: talks to a Federa (vantage6 3.x compatible) server.

    from federa_client import Client
    client = Client("http://localhost", 5000, verbose=True)
    client.authenticate("root", password)

See docs/client-python.md.
"""

from .client import Client, ResultList, UserClient, WhoAmI
from .exceptions import (
    AuthenticationError,
    ConnectionFailed,
    DecryptionError,
    EncryptionSetupError,
    FederaError,
    NotFound,
    PermissionDenied,
    ServerError,
    TaskFailed,
    TaskTimeout,
    ValidationError,
)
from .serialization import UnsafePayloadWarning

__version__ = "0.1.0"

__all__ = [
    "Client",
    "UserClient",
    "WhoAmI",
    "ResultList",
    "FederaError",
    "AuthenticationError",
    "PermissionDenied",
    "NotFound",
    "ValidationError",
    "ServerError",
    "ConnectionFailed",
    "EncryptionSetupError",
    "DecryptionError",
    "TaskTimeout",
    "TaskFailed",
    "UnsafePayloadWarning",
    "__version__",
]
