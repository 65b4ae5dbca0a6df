"""Logging in, sessions, errors and verbose output."""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.server
import json
import logging
import threading
import time

import pytest
import requests

from conftest import JWT_SECRET, ROOT_PASSWORD, ROOT_USERNAME, free_port
from federa_client import (
    AuthenticationError,
    Client,
    ConnectionFailed,
    FederaError,
    NotFound,
    ServerError,
)


def test_health_and_version(server):
    client = server.client()
    assert client.health()["database"] is True
    assert isinstance(client.version(), str) and client.version()
    assert client.base_url == f"http://127.0.0.1:{server.port}/api"
    assert Client("127.0.0.1", server.port).base_url == client.base_url  # http:// is assumed


def test_authenticate_keeps_tokens_not_the_password(server):
    client = server.client()
    me = client.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    assert me["username"] == ROOT_USERNAME and me["id"] and me["organization_id"]
    assert client.is_authenticated
    assert not any(ROOT_PASSWORD in repr(value) for value in vars(client).values())
    client.logout()
    with pytest.raises(AuthenticationError, match="not logged in"):
        client.organization.list_all()


def test_logout_ends_the_session_on_the_server(server, caplog):
    client = server.client()
    client.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    access, refresh = client._access_token, client._refresh_token
    base = f"http://127.0.0.1:{server.port}/api"
    assert requests.get(f"{base}/user", headers={"Authorization": f"Bearer {access}"}, timeout=10).status_code == 200
    with caplog.at_level(logging.INFO, logger="federa_client"):
        assert client.logout() is True
    assert "the server ended the session" in caplog.text
    assert not client.is_authenticated
    assert requests.get(f"{base}/user", headers={"Authorization": f"Bearer {access}"}, timeout=10).status_code == 401
    assert requests.post(f"{base}/token/refresh", headers={"Authorization": f"Bearer {refresh}"},
                         timeout=10).status_code == 401


def test_logout_without_the_server_forgets_the_tokens_and_says_so(server, caplog):
    live = server.client()
    live.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    client = Client("http://127.0.0.1", free_port(), timeout=5)
    client._access_token, client._refresh_token = live._access_token, live._refresh_token
    with caplog.at_level(logging.INFO, logger="federa_client"):
        assert client.logout() is False
    assert "Logged out locally: the tokens are forgotten, but the server could not be reached" in caplog.text
    assert not client.is_authenticated and client._refresh_token is None


@pytest.mark.parametrize("username", [ROOT_USERNAME, "nobody-at-all"])
def test_wrong_password_raises_authentication_error(server, username):
    client = server.client()
    wrong = "Wrong-Password-99!"
    with pytest.raises(AuthenticationError) as info:
        client.authenticate(username, wrong)
    assert info.value.status == 401
    assert f"login as {username!r} failed" in str(info.value)
    assert wrong not in str(info.value) and wrong not in repr(info.value.args)
    assert not client.is_authenticated


def test_nothing_listening_raises_connection_failed():
    port = free_port()
    client = Client("http://127.0.0.1", port, timeout=5)
    for call in (client.health, lambda: client.authenticate("root", "Whatever-1!")):
        with pytest.raises(ConnectionFailed) as info:
            call()
        assert "127.0.0.1" in str(info.value) and str(port) in str(info.value)
        assert info.value.host == "http://127.0.0.1" and info.value.port == port
        assert "Whatever-1!" not in str(info.value)


def test_wrong_api_path_is_reported(server):
    with pytest.raises(NotFound):
        Client("http://127.0.0.1", server.port, path="/not-the-api").health()


class _Stub(http.server.BaseHTTPRequestHandler):
    """Answers every request with the status and body in the path: /500/json or /502/html."""

    def do_GET(self):  # noqa: N802
        parts = self.path.split("/")
        status, kind = int(parts[1]), parts[2].split("?")[0]
        body = json.dumps({"msg": "An internal server error occurred."}).encode() if kind == "json" \
            else b"<html>Bad gateway</html>"
        self.send_response(status)
        self.send_header("Content-Type", "application/json" if kind == "json" else "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def stub():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def test_server_failures_raise_server_error(stub):
    """5xx answers (from a stand-in server: the real one does not fail on demand)."""
    client = Client("127.0.0.1", stub, path="/")
    with pytest.raises(ServerError, match=r"HTTP 500.*An internal server error occurred") as info:
        client.request("GET", "/500/json", authenticated=False)
    assert info.value.status == 500
    with pytest.raises(ServerError, match="HTTP 502"):
        client.request("GET", "/502/html", authenticated=False)
    with pytest.raises(ServerError, match="not JSON"):
        client.request_json("GET", "/200/html", authenticated=False)


# --- token refresh ------------------------------------------------------------------------------------------

def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def expired_copy(token: str) -> str:
    """The same claims with ``exp`` in the past, signed with the test server's secret."""
    header, payload, _ = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    now = int(time.time())
    claims.update(iat=now - 3600, nbf=now - 3600, exp=now - 600)
    signing_input = f"{header}.{_b64url(json.dumps(claims).encode())}"
    signature = hmac.new(JWT_SECRET.encode(), signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{_b64url(signature)}"


def counting(client):
    calls = []
    original = client._session.request

    def wrapper(method, url, **kwargs):
        calls.append((method, url.split("/api", 1)[1]))
        return original(method, url, **kwargs)

    client._session.request = wrapper
    return calls


def test_expired_access_token_is_refreshed_once(server):
    client = server.client()
    client.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    client._access_token = expired_copy(client._access_token)
    client._access_expiry = None  # the client does not know: the server's 401 "expired" triggers the refresh
    calls = counting(client)
    assert client.organization.get(client.whoami["organization_id"])["id"] == client.whoami["organization_id"]
    assert calls == [("GET", f"/organization/{client.whoami['organization_id']}"), ("POST", "/token/refresh"),
                     ("GET", f"/organization/{client.whoami['organization_id']}")]


def test_token_known_to_be_expired_is_refreshed_before_the_request(server):
    client = server.client()
    client.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    client._access_token = expired_copy(client._access_token)
    client._access_expiry = time.time() - 600
    calls = counting(client)
    client.rule.list_all(page=1, per_page=1)
    assert calls == [("POST", "/token/refresh"), ("GET", "/rule")]


def test_session_that_cannot_be_refreshed_raises_authentication_error(server):
    client = server.client(verbose=True)
    client.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    client._access_token = expired_copy(client._access_token)
    client._access_expiry = None
    client._refresh_token = expired_copy(client._refresh_token)
    calls = counting(client)
    with pytest.raises(AuthenticationError, match="the session expired and could not be refreshed") as info:
        client.organization.list_all()
    assert calls == [("GET", "/organization"), ("POST", "/token/refresh")]  # one refresh, never a loop
    assert "Bearer" not in str(info.value) and not client.is_authenticated


def test_garbage_token_raises_authentication_error(server):
    client = server.client()
    client.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    client._access_token = "not.a.token"
    with pytest.raises(AuthenticationError, match="rejected the session token"):
        client.organization.list_all()


# --- verbose output -----------------------------------------------------------------------------------------

def test_verbose_prints_status_and_never_the_password(server, capsys, caplog, unique):
    caplog.set_level(logging.DEBUG)  # everything any library logs, urllib3 included
    client = server.client(verbose=True)
    client.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    org = client.organization.create(unique("verbose-org"))
    client.organization.update(org["id"], country="NL")
    with pytest.raises(AuthenticationError):
        server.client(verbose=True).authenticate(ROOT_USERNAME, ROOT_PASSWORD + "x")
    user_password = "Verbose-User-1!"
    client.user.create(unique("verbose-user"), password=user_password, email=f"{unique('v')}@example.org", firstname="V",
                       lastname="U")
    captured = capsys.readouterr()
    out = captured.out
    assert f"Authenticating as {ROOT_USERNAME}" in out
    assert "Logged in as root" in out
    assert "Creating organization" in out and f"Updating organization {org['id']}" in out
    assert "Creating user" in out
    everything = out + captured.err + caplog.text
    for secret in (ROOT_PASSWORD, user_password, client._access_token, client._refresh_token):
        assert secret not in everything


def test_quiet_by_default(server, capsys):
    client = server.client()
    client.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    client.organization.list_all()
    assert capsys.readouterr().out == ""


def test_all_errors_share_the_base_class():
    from federa_client import exceptions

    for name in exceptions.__all__:
        assert issubclass(getattr(exceptions, name), FederaError)


def test_refresh_tokens_rotate_and_the_client_follows(server):
    """Each refresh token is single-use: the client keeps the successor the server answers with, so its session
    survives many refreshes, and presenting a spent one ends the session."""
    client = server.client()
    client.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    first_refresh = client._refresh_token
    for _ in range(3):
        client._access_token = expired_copy(client._access_token)
        client._access_expiry = None
        assert client.organization.get(client.whoami["organization_id"])["id"] == client.whoami["organization_id"]
    assert client._refresh_token != first_refresh
    spent = requests.post(f"{client.host}:{client.port}{client.path}/token/refresh",
                          headers={"Authorization": f"Bearer {first_refresh}"}, timeout=10)
    assert spent.status_code == 401 and spent.json()["code"] == "refresh_reused"
    client._access_token = expired_copy(client._access_token)
    client._access_expiry = None
    with pytest.raises(AuthenticationError, match="could not be refreshed"):
        client.organization.list()
