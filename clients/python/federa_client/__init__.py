"""Federa Python client: talks to a Federa (vantage6 3.x compatible) server.

    from federa_client import Client
    client = Client("http://localhost", 5000, verbose=True)
    client.authenticate("root", password)

See docs/client-python.md.
"""

from .client import Client, ResultList, UserClient, WhoAmI
from .exceptions import *  # noqa: F401,F403 (every exception, as listed in exceptions.__all__)
from .exceptions import __all__ as _exception_names
from .serialization import UnsafePayloadWarning

__version__ = "0.1.0"

__all__ = [
    "Client",
    "UserClient",
    "WhoAmI",
    "ResultList",
    *_exception_names,
    "UnsafePayloadWarning",
    "__version__",
]
