"""The :class:`Client`: log in to a Federa (vantage6 3.x compatible) server and manage it from Python."""

from __future__ import annotations

import logging
import sys
import time
from typing import Any, Dict, Optional

import requests

from .encryption import CryptorBase
from .encryption_setup import EncryptionSetup
from .exceptions import (
    AuthenticationError,
    ConnectionFailed,
    FederaError,
    NotFound,
    PermissionDenied,
    ServerError,
    ValidationError,
)
from .resource_base import IdLike  # noqa: F401 (importable from here as before)
from .resources import (
    CollaborationResource,
    NodeResource,
    OrganizationResource,
    ResultResource,
    RoleResource,
    RuleResource,
    TaskResource,
    UserResource,
)
from .session import Session, WhoAmI
from .store_resources import StoreResource
from .task_posting import TaskPosting
from .trace_context import TaskTraces
from .util import Util
from .v6_compat import V6ClientMethods

__all__ = ["Client", "UserClient", "ResultList", "WhoAmI"]

log = logging.getLogger("federa_client")

#: Page size used when the client collects every page of a listing.
COLLECT_PAGE_SIZE = 100
#: Refresh the access token this many seconds before it expires.
REFRESH_MARGIN_SECONDS = 30


class ResultList(list):
    """A list of items from a listing endpoint; ``total`` is the server's ``total-count`` (all pages)."""

    total: Optional[int] = None


class Client(Session, EncryptionSetup, V6ClientMethods, TaskPosting):
    """A Federa user client.

    :param host: server address, e.g. ``"http://localhost"`` or ``"https://federa.example.org"``; ``http://`` is
        assumed when no scheme is given.
    :param port: server port, e.g. ``5000``.
    :param path: the API prefix (server setting ``api_path``), ``"/api"`` by default.
    :param verbose: print short status messages ("Authenticating as root", "Encrypting input for organization
        3", ...) to standard output. Passwords and tokens are never printed.
    :param timeout: seconds to wait for each HTTP answer.

    ``wait_for_results`` and ``result.logs(..., follow=True)`` wait on the server's socket events when
    python-socketio is installed (``client.use_socket``, ``client.socket_url``), and poll otherwise.

    After :meth:`authenticate`, the resources are managed through ``client.user``, ``client.organization``,
    ``client.collaboration``, ``client.node``, ``client.task``, ``client.result``, ``client.role``,
    ``client.rule`` and, for the algorithm store inside the server, ``client.store``.
    """

    def __init__(self, host: str, port: int, path: str = "/api", verbose: bool = False, log_level: str = "debug",
                 timeout: float = 30.0):
        host = str(host).strip().rstrip("/")
        if "://" not in host:
            host = "http://" + host
        self.host = host
        self.port = int(port)
        self.path = "/" + str(path or "").strip("/") if str(path or "").strip("/") else ""
        self.verbose = bool(verbose)
        self.timeout = timeout
        #: Where the client opens its socket.io connection: the server's root (``<host>:<port>``), not the API path.
        self.socket_url = f"{host}:{self.port}"
        #: Wait on the server's socket events (when python-socketio is installed); ``False`` always polls.
        self.use_socket = True
        self._session = requests.Session()
        #: The trace context of each task this client posted (trace_context.py).
        self._traces = TaskTraces()
        self._access_token: Optional[str] = None
        self._refresh_token: Optional[str] = None
        self._refresh_url: Optional[str] = None
        self._access_expiry: Optional[float] = None
        self.cryptor: Optional[CryptorBase] = None
        #: vantage6's ``log_level``: the level of the ``federa_client`` logger.
        self.log_level = str(log_level or "debug")
        log.setLevel(getattr(logging, self.log_level.upper(), logging.DEBUG))
        #: After :meth:`authenticate`: a :class:`WhoAmI` of the logged-in user.
        self.whoami: Optional[WhoAmI] = None
        self.util = Util(self)

        self.user = UserResource(self)
        self.organization = OrganizationResource(self)
        self.collaboration = CollaborationResource(self)
        self.node = NodeResource(self)
        self.task = TaskResource(self)
        self.result = ResultResource(self)
        self.role = RoleResource(self)
        self.rule = RuleResource(self)
        self.store = StoreResource(self)

    # ------------------------------------------------------------------ basics

    @property
    def base_url(self) -> str:
        """``<host>:<port><path>``, e.g. ``http://localhost:5000/api``."""
        return f"{self.host}:{self.port}{self.path}"

    @property
    def is_authenticated(self) -> bool:
        return self._access_token is not None

    def __repr__(self) -> str:
        who = self.whoami["username"] if self.whoami else None
        return f"<federa_client.Client {self.base_url} user={who!r}>"

    def log(self, message: str) -> None:
        """Print ``message`` when ``verbose`` is on (and always pass it to the ``federa_client`` logger)."""
        log.info(message)
        if self.verbose:
            print(f"[federa] {message}", file=sys.stdout, flush=True)

    def _url(self, endpoint: str) -> str:
        return self.base_url + "/" + endpoint.lstrip("/")

    # ------------------------------------------------------------------ HTTP core

    def _send(self, method: str, url: str, *, params=None, json_body=None, token: Optional[str] = None,
              endpoint: str = "", stream: bool = False) -> requests.Response:
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if self._traces.current:
            headers["traceparent"] = self._traces.current
        try:
            return self._session.request(method, url, params=params, json=json_body, headers=headers,
                                         timeout=self.timeout, stream=stream)
        except requests.exceptions.Timeout:
            raise ConnectionFailed(
                f"the server at {self.host} port {self.port} did not answer {method} {endpoint or url} within "
                f"{self.timeout} seconds", host=self.host, port=self.port) from None
        except requests.exceptions.RequestException as exc:
            kind = type(exc).__name__
            raise ConnectionFailed(
                f"cannot connect to the Federa server at {self.host} port {self.port} ({kind}); is the server "
                "running and are host and port right?", host=self.host, port=self.port) from None

    @staticmethod
    def _body(response: requests.Response) -> Any:
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            return None

    @staticmethod
    def _server_text(body: Any) -> Optional[str]:
        """The server's explanation from an error body (``msg``, or the parser's ``message``)."""
        if not isinstance(body, dict):
            return None
        msg = body.get("msg")
        message = body.get("message")
        if isinstance(message, dict) and message:
            fields = "; ".join(f"{k}: {v}" for k, v in message.items())
            return f"{msg} ({fields})" if isinstance(msg, str) and msg else fields
        if isinstance(msg, str) and msg:
            return msg
        if isinstance(message, str) and message:
            return message
        return None

    def _raise_for(self, method: str, endpoint: str, response: requests.Response) -> None:
        status = response.status_code
        body = self._body(response)
        text = self._server_text(body)
        code = body.get("code") if isinstance(body, dict) and isinstance(body.get("code"), str) else None
        where = f"{method} {endpoint}"
        said = f": {text}" if text else ""
        kw = dict(status=status, server_message=text, code=code)
        if status == 400 or status == 413:
            raise ValidationError(f"the server refused {where}{said}", **kw)
        if status == 401:
            lowered = (text or "").lower()
            if code in ("missing_authorization",) or "missing authorization" in lowered:
                raise AuthenticationError(f"not logged in: {where} needs authentication; call authenticate() first",
                                          **kw)
            if code in ("token_expired", "identity_missing", "invalid_credentials") or "expired" in lowered \
                    or "error loading the user" in lowered:
                raise AuthenticationError(f"the session is no longer valid for {where}{said}; log in again", **kw)
            raise PermissionDenied(f"permission denied for {where}{said}", **kw)
        if status == 403:
            raise PermissionDenied(f"permission denied for {where}{said}", **kw)
        if status == 422:
            raise AuthenticationError(f"the server rejected the session token for {where}{said}; log in again",
                                      **kw)
        if status == 404:
            raise NotFound(f"not found: {where}{said}", **kw)
        if status >= 500:
            raise ServerError(f"the server failed on {where} (HTTP {status}){said}", **kw)
        raise FederaError(f"{where} failed with HTTP {status}{said}", **kw)

    # Federa's request form, returning the ``requests.Response``; :meth:`request` (from
    # :class:`~federa_client.v6_compat.V6ClientMethods`) takes this form and vantage6's.
    def api_request(self, method: str, endpoint: str, *, params: Optional[Dict[str, Any]] = None,
                    json: Any = None, authenticated: bool = True, stream: bool = False,
                    base: Optional[str] = None) -> requests.Response:
        """Send one API request and return the response, or raise the matching :mod:`federa_client.exceptions`
        error. ``endpoint`` is relative to the API path, e.g. ``"/organization/3"``.

        When the access token has expired the client refreshes it once (``POST /token/refresh``) and repeats the
        request once; it never retries more. With ``stream`` the body of a successful answer is left unread
        (``response.iter_content``), for downloads. ``base`` replaces :attr:`base_url` (the algorithm store
        inside the server answers beside the API, at ``<host>:<port>/store/api``).
        """
        method = method.upper()
        endpoint = "/" + endpoint.lstrip("/")
        params = _clean_params(params)
        refreshed = False
        if authenticated:
            if self._access_token is None:
                raise AuthenticationError(f"not logged in: {method} {endpoint} needs authentication; "
                                          "call authenticate() first")
            if self._access_expiry is not None and time.time() > self._access_expiry - REFRESH_MARGIN_SECONDS:
                self._refresh()
                refreshed = True
        while True:
            url = self._url(endpoint) if base is None else base + endpoint
            response = self._send(method, url, params=params, json_body=json,
                                  token=self._access_token if authenticated else None, endpoint=endpoint,
                                  stream=stream)
            if response.status_code <= 299:
                return response
            if authenticated and not refreshed and response.status_code == 401 and self._is_expired(response):
                self._refresh()
                refreshed = True
                continue
            self._raise_for(method, endpoint, response)

    def request_json(self, method: str, endpoint: str, **kwargs) -> Any:
        """Like :meth:`request`, returning the decoded JSON body."""
        response = self.request(method, endpoint, **kwargs)
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            raise ServerError(
                f"{method.upper()} {endpoint} answered HTTP {response.status_code} with something that is not "
                f"JSON; is {self.base_url} the API of a Federa server (check host, port and path)?",
                status=response.status_code) from None

    def collect(self, endpoint: str, params: Optional[Dict[str, Any]] = None) -> ResultList:
        """GET a paginated listing. With ``page`` in ``params`` only that page is fetched; otherwise every page
        is collected (``page``/``per_page``, bounded by the ``total-count`` header)."""
        params = dict(_clean_params(params) or {})
        if params.get("page") is not None:
            response = self.request("GET", endpoint, params=params)
            items = ResultList(self._items(response, endpoint))
            items.total = _int_or_none(response.headers.get("total-count"))
            return items
        per_page = int(params.pop("per_page", None) or COLLECT_PAGE_SIZE)
        items = ResultList()
        page = 1
        total: Optional[int] = None
        while True:
            response = self.request("GET", endpoint, params={**params, "page": page, "per_page": per_page})
            batch = self._items(response, endpoint)
            total = _int_or_none(response.headers.get("total-count"))
            items.extend(batch)
            if not batch or len(batch) < per_page or (total is not None and len(items) >= total):
                break
            page += 1
        items.total = total if total is not None else len(items)
        return items

    def _items(self, response: requests.Response, endpoint: str) -> list:
        try:
            body = response.json()
        except ValueError:
            body = None
        if isinstance(body, dict) and isinstance(body.get("data"), list):
            return body["data"]
        if not isinstance(body, list):
            raise ServerError(f"GET {endpoint} did not answer with a JSON list", status=response.status_code)
        return body

    # ------------------------------------------------------------------ server-wide helpers

    def health(self) -> Dict[str, Any]:
        """``GET /health`` (no login needed)."""
        response = self.request("GET", "/health", authenticated=False)
        return response.json()

    def version(self) -> str:
        """The server's version (``GET /version``)."""
        return self.request("GET", "/version", authenticated=False).json().get("version")

    def change_password(self, current_password: str, new_password: str) -> None:
        """Change the logged-in user's password (``PATCH /password/change``)."""
        self.log("Changing the password of the logged-in user")
        self.request("PATCH", "/password/change",
                     json={"current_password": current_password, "new_password": new_password})


#: vantage6 3.x's name of the user client (``from vantage6.client import UserClient``).
UserClient = Client

def _int_or_none(value: Optional[str]) -> Optional[int]:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _clean_params(params: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """Drop ``None``/``False`` flags, turn ``True`` into ``"true"``; lists become repeated parameters."""
    if not params:
        return params
    out: Dict[str, Any] = {}
    for key, value in params.items():
        if value is None or value is False:
            continue
        if value is True:
            value = "true"
        elif isinstance(value, (list, tuple, set)):
            value = [("true" if v is True else v) for v in value if v is not None]
        out[key] = value
    return out
