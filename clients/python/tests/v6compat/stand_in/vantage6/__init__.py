"""Test stand-in: the package name a vantage6 user's script imports, pointing at Federa's packages."""
