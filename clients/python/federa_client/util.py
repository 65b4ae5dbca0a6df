"""``client.util``: vantage6 3.x's general utilities (server version and health, passwords, two-factor reset,
a new organization key)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Dict, Optional, Union

from .encryption import RSACryptor, create_new_rsa_key

if TYPE_CHECKING:
    from .client import Client

__all__ = ["Util"]


class Util:
    """``client.util``: vantage6 3.x's general utilities."""

    def __init__(self, client: "Client"):
        self._client = client

    def get_server_version(self) -> Dict[str, Any]:
        """``{"version": ...}`` of the server (``GET /version``)."""
        return self._client.request_json("GET", "/version", authenticated=False)

    def get_server_health(self) -> Dict[str, Any]:
        """The server's health (``GET /health``)."""
        return self._client.request_json("GET", "/health", authenticated=False)

    def change_my_password(self, current_password: str, new_password: str) -> Dict[str, Any]:
        """Change the logged-in user's password; returns the server's message."""
        self._client.log("Changing the password of the logged-in user")
        return self._client.request_json("PATCH", "/password/change", json={
            "current_password": current_password, "new_password": new_password}) or {}

    def reset_my_password(self, email: Optional[str] = None, username: Optional[str] = None) -> Dict[str, Any]:
        """Ask the server to mail a password-reset token to the account's address."""
        if not email and not username:
            raise ValueError("give the email or the username of the account")
        return self._client.request_json("POST", "/recover/lost", authenticated=False,
                                         json={k: v for k, v in (("email", email), ("username", username)) if v})

    def set_my_password(self, token: str, password: str) -> Dict[str, Any]:
        """Set a new password with the token of :meth:`reset_my_password`."""
        return self._client.request_json("POST", "/recover/reset", authenticated=False,
                                         json={"reset_token": token, "password": password})

    def reset_two_factor_auth(self, password: str, email: Optional[str] = None,
                              username: Optional[str] = None) -> Dict[str, Any]:
        """Ask the server to mail a token to reset two-factor authentication."""
        if not email and not username:
            raise ValueError("give the email or the username of the account")
        body = {k: v for k, v in (("email", email), ("username", username)) if v}
        return self._client.request_json("POST", "/recover/2fa/lost", authenticated=False,
                                         json={**body, "password": password})

    def set_two_factor_auth(self, token: str) -> Dict[str, Any]:
        """Reset two-factor authentication with the token of :meth:`reset_two_factor_auth`; the answer holds the
        new secret (``qr_uri``, ``otp_secret``) for an authenticator app."""
        return self._client.request_json("POST", "/recover/2fa/reset", authenticated=False,
                                         json={"reset_token": token})

    def generate_private_key(self, file_: Union[str, "os.PathLike[str]", None] = None) -> None:
        """Make a new private key for your organization at ``file_`` (``private_key.pem`` in the current folder
        by default), use it for encryption and upload its public key to your organization."""
        path = os.path.abspath(os.fspath(file_) if file_ else "private_key.pem")
        self._client.log(f"Generating the private key file {path}")
        create_new_rsa_key(path)
        self._client.setup_encryption(path)
        cryptor = self._client.cryptor
        assert isinstance(cryptor, RSACryptor)
        self._client.organization.update(self._client._whoami_org(), public_key=cryptor.public_key_str)
        self._client.log("The public key of your organization on the server is updated")
