"""Federa Python client: talks to a Federa (vantage6 3.x compatible) server."""
