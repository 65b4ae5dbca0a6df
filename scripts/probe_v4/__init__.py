"""The workflows of scripts/probe-v4-client.py, a vantage6 4.14 user's script run against /v4/api."""
