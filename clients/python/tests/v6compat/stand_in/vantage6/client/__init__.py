"""Test stand-in for ``vantage6.client``: Federa's client under vantage6's import name."""
from federa_client import Client, UserClient  # noqa: F401
