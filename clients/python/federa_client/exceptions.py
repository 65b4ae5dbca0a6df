"""Every exception the Federa client raises.

All of them derive from :class:`FederaError`, so ``except FederaError`` catches anything the client reports.
Messages say what happened in plain words. They never contain a password or a token: the client never puts
request bodies or ``Authorization`` headers into an exception.

Exceptions caused by an HTTP answer carry ``status`` (the HTTP status code), ``server_message`` (the ``msg`` the
server sent, if any) and ``code`` (Federa's error code such as ``forbidden``, if the server sent one).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

__all__ = [
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
]


class FederaError(Exception):
    """Base class of every client error."""

    def __init__(self, message: str, *, status: Optional[int] = None, server_message: Optional[str] = None,
                 code: Optional[str] = None):
        super().__init__(message)
        self.message = message
        #: HTTP status of the answer that caused the error (None when there was no answer).
        self.status = status
        #: The server's own explanation (its ``msg``), when it sent one.
        self.server_message = server_message
        #: Federa's error code (e.g. ``forbidden``, ``not_found``) when the server sent one.
        self.code = code

    def __str__(self) -> str:
        return self.message


class AuthenticationError(FederaError):
    """Logging in failed (wrong username or password, locked account), the client is not logged in, or the
    session expired and could not be refreshed."""


class PermissionDenied(FederaError):
    """The server refused the operation because the user lacks a rule that allows it (HTTP 401 from a rule
    check)."""


class NotFound(FederaError):
    """The resource (or the endpoint) does not exist (HTTP 404)."""


class ValidationError(FederaError):
    """The server refused the request's content (HTTP 400), e.g. a missing field, a name already in use or a
    password that does not meet the policy. The server's explanation is in the message."""


class ServerError(FederaError):
    """The server failed (HTTP 5xx) or answered with something that is not the API."""


class ConnectionFailed(FederaError):
    """No HTTP answer: nothing listens at the address, DNS failed, or the request timed out."""

    def __init__(self, message: str, *, host: str, port: int):
        super().__init__(message)
        self.host = host
        self.port = port


class EncryptionSetupError(FederaError):
    """Input cannot be encrypted or a result cannot be read with the current encryption setup, e.g. the
    collaboration is encrypted but :meth:`Client.setup_encryption` was not given a private key, or the receiving
    organization has no public key."""


class DecryptionError(FederaError):
    """A result (or input) could not be decrypted or deserialized with the configured private key."""


class TaskTimeout(FederaError):
    """:meth:`Client.wait_for_results` gave up because the task was not complete in time."""


#: How much of a failed run's log :class:`TaskFailed` quotes (the last characters).
LOG_TAIL_CHARS = 1500


def _ref(value: Any) -> Any:
    return value.get("id") if isinstance(value, dict) else value


def log_tail(log: Optional[str], limit: int = LOG_TAIL_CHARS) -> str:
    """The last ``limit`` characters of a run's log (``""`` when there is none)."""
    text = (log or "").rstrip()
    return text if len(text) <= limit else "..." + text[-limit:]


class TaskFailed(FederaError):
    """:meth:`Client.wait_for_results` found runs of the task that did not complete (status ``crashed``,
    ``failed``, ``not allowed``, ``killed by user``, ...).

    ``failed`` lists those runs (result dictionaries with ``status`` and ``log``), ``results`` every run of the
    task, so the outputs of the runs that did complete are not lost.
    """

    def __init__(self, task_id: int, failed: List[Dict[str, Any]], results: List[Dict[str, Any]]):
        parts = []
        for run in failed:
            status = run.get("status") or "finished without output"
            tail = log_tail(run.get("log"))
            parts.append(f"run {run.get('id')} (organization {_ref(run.get('organization'))}): {status}"
                         + (f"; log tail:\n{tail}" if tail else "; no log"))
        super().__init__(f"task {task_id} did not succeed: {len(failed)} of {len(results)} run(s) failed\n"
                         + "\n".join(parts))
        self.task_id = task_id
        self.failed = failed
        self.results = results
