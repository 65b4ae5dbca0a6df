"""Log helpers with the names and output of vantage6 3.x's ``vantage6.tools.util`` (lines on stdout, which the
node stores as the run's log)."""
import sys


def info(msg: str) -> None:
    sys.stdout.write(f"info > {msg}\n")
    sys.stdout.flush()


def warn(msg: str) -> None:
    sys.stdout.write(f"warn > {msg}\n")
    sys.stdout.flush()


def error(msg: str) -> None:
    sys.stdout.write(f"error > {msg}\n")
    sys.stdout.flush()
