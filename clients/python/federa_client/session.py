"""The logged-in session of :class:`~federa_client.Client`: ``authenticate``, ``whoami`` (:class:`WhoAmI`), the
access and refresh tokens (refreshed once when expired) and ``logout``, as the :class:`Session` mixin."""

from __future__ import annotations

import base64
import json
from typing import Any, Dict, Optional, Union

import requests

from .exceptions import AuthenticationError, FederaError

__all__ = ["Session", "WhoAmI"]


def _jwt_expiry(token: str) -> Optional[float]:
    """The ``exp`` claim of a JWT, read without verifying it (only used to refresh in time)."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        exp = claims.get("exp")
        return float(exp) if exp is not None else None
    except (IndexError, ValueError, TypeError, AttributeError):
        return None


class WhoAmI(dict):
    """Who is logged in. A dictionary (``whoami["organization_id"]``, Federa's form) whose keys are also
    attributes in vantage6 3.x's form: ``type_``, ``id_``, ``name``, ``organization_id``, ``organization_name``
    (and ``id``, ``username``)."""

    def __getattr__(self, key: str) -> Any:
        aliases = {"id_": "id", "type_": "type"}
        try:
            return self[aliases.get(key, key)]
        except KeyError:
            raise AttributeError(key) from None


class Session:
    """Mixed into :class:`~federa_client.Client`, which provides ``_send``, ``_url``, ``_body``, ``_server_text``,
    ``_raise_for``, ``request_json`` and ``log``."""

    # ------------------------------------------------------------------ authentication

    def authenticate(self, username: str, password: str, mfa_code: Union[str, int, None] = None) -> Dict[str, Any]:
        """Log in as a user. Keeps the access and refresh tokens (never the password) and returns
        :attr:`whoami`. Raises :class:`AuthenticationError` on a wrong username or password or a locked account.
        """
        self.log(f"Authenticating as {username}")
        body: Dict[str, Any] = {"username": username, "password": password}
        if mfa_code is not None:
            body["mfa_code"] = str(mfa_code)
        try:
            response = self._send("POST", self._url("/token/user"), json_body=body, endpoint="/token/user")
        finally:
            body = {}  # drop the only reference to the password this method created
        data = self._body(response)
        text = self._server_text(data)
        if response.status_code in (400, 401):
            raise AuthenticationError(
                f"login as {username!r} failed" + (f": {text}" if text else " (wrong username or password)"),
                status=response.status_code, server_message=text,
                code=data.get("code") if isinstance(data, dict) else None)
        if response.status_code != 200:
            self._raise_for("POST", "/token/user", response)
        if not isinstance(data, dict) or not data.get("access_token"):
            if isinstance(data, dict) and (data.get("qr_uri") or data.get("otp_secret")):
                raise AuthenticationError(
                    f"login as {username!r} needs two-factor authentication: set up an authenticator app with the "
                    "QR code the server issued (use the web interface), then pass mfa_code=",
                    status=200, server_message=text)
            raise AuthenticationError(
                f"login as {username!r} gave no token" + (f": {text}" if text else "")
                + (" (pass mfa_code= for two-factor authentication)" if text and "code" in text.lower() else ""),
                status=response.status_code, server_message=text)
        self._set_tokens(data)
        self._refresh_token = data.get("refresh_token")
        user_url = data.get("user_url")
        user_path = user_url[len(self.path):] if user_url and user_url.startswith(self.path + "/") else None
        me = self.request_json("GET", user_path) if user_path else None
        if isinstance(me, dict):
            org = me.get("organization")
            org_id = org.get("id") if isinstance(org, dict) else org
            self.whoami = WhoAmI(type="user", id=me.get("id"), username=me.get("username", username),
                                 name=me.get("firstname"), organization_id=org_id,
                                 organization_name=self._organization_name(org_id))
        else:
            self.whoami = WhoAmI(type="user", id=None, username=username, name=None, organization_id=None,
                                 organization_name=None)
        self.log(f"Logged in as {self.whoami['username']} (user {self.whoami['id']}, organization "
                 f"{self.whoami['organization_id']})")
        return self.whoami

    def _organization_name(self, org_id: Any) -> Optional[str]:
        if org_id is None:
            return None
        try:
            return self.request_json("GET", f"/organization/{int(org_id)}").get("name")
        except FederaError:
            return None

    def _whoami_id(self) -> int:
        if not self.whoami or self.whoami.get("id") is None:
            raise AuthenticationError("not logged in: call authenticate() first")
        return int(self.whoami["id"])

    def _whoami_org(self) -> int:
        if not self.whoami or self.whoami.get("organization_id") is None:
            raise AuthenticationError("not logged in: call authenticate() first")
        return int(self.whoami["organization_id"])

    def logout(self) -> bool:
        """End the session on the server (``POST /token/logout``: its access and refresh tokens are refused
        afterwards) and forget the tokens. The tokens are forgotten in any case; returns False, and logs why, when
        the server could not be reached or did not end the session."""
        token = self._access_token
        self._access_token = self._refresh_token = None
        self._access_expiry = None
        self.whoami = None
        if not token:
            self.log("Logged out (there was no session)")
            return False
        try:
            response = self._send("POST", self._url("/token/logout"), token=token, endpoint="/token/logout")
        except FederaError as exc:
            self.log(f"Logged out locally: the tokens are forgotten, but the server could not be reached ({exc})")
            return False
        if response.status_code == 200:
            self.log("Logged out: the server ended the session")
            return True
        text = self._server_text(self._body(response)) or f"HTTP {response.status_code}"
        self.log(f"Logged out locally: the tokens are forgotten, but the server did not end the session ({text})")
        return False

    def _refresh(self) -> None:
        """Get a new access token with the refresh token (exactly one attempt)."""
        if not self._refresh_token:
            raise AuthenticationError("the session expired and there is no refresh token; log in again")
        self.log("Refreshing the session token")
        url = self.host + f":{self.port}" + (self._refresh_url or f"{self.path}/token/refresh")
        response = self._send("POST", url, token=self._refresh_token, endpoint="/token/refresh")
        body = self._body(response)
        if response.status_code != 200 or not isinstance(body, dict) or not body.get("access_token"):
            self._access_token = None
            self._refresh_token = None
            text = self._server_text(body)
            raise AuthenticationError(
                "the session expired and could not be refreshed"
                + (f" ({text})" if text else f" (HTTP {response.status_code})") + "; log in again",
                status=response.status_code, server_message=text)
        self._set_tokens(body)

    def _set_tokens(self, body: Dict[str, Any]) -> None:
        self._access_token = body["access_token"]
        self._access_expiry = _jwt_expiry(self._access_token)
        if body.get("refresh_token"):
            self._refresh_token = body["refresh_token"]
        if body.get("refresh_url"):
            self._refresh_url = body["refresh_url"]

    def _is_expired(self, response: requests.Response) -> bool:
        body = self._body(response)
        if isinstance(body, dict):
            if body.get("code") == "token_expired":
                return True
            msg = body.get("msg")
            return isinstance(msg, str) and "expired" in msg.lower()
        return False
