"""End-to-end encryption of :class:`~federa_client.Client`: ``setup_encryption``, the cryptor for a
collaboration and ``decrypt_payload``, as the :class:`EncryptionSetup` mixin."""

from __future__ import annotations

import os
import warnings
from typing import Any, Optional, Union

from .encryption import CryptorBase, DummyCryptor, EncryptionError, RSACryptor
from .exceptions import DecryptionError, EncryptionSetupError, FederaError
from .serialization import read_payload

__all__ = ["EncryptionSetup"]


class EncryptionSetup:
    """Mixed into :class:`~federa_client.Client`, which provides ``cryptor``, ``whoami``, ``request_json`` and
    ``log``."""

    # ------------------------------------------------------------------ encryption

    def setup_encryption(self, private_key_file: Union[str, "os.PathLike[str]", None] = None, *,
                         private_key_path: Union[str, "os.PathLike[str]", None] = None) -> CryptorBase:
        """Set up end-to-end encryption. ``private_key_file`` is the unencrypted PEM private key of your
        organization (needed to post tasks to, and read results of, encrypted collaborations); ``None`` means
        this client only works with unencrypted collaborations. ``private_key_path`` is Federa's earlier name.

        Unlike vantage6, the public key on the server is never replaced silently (that would lock the other
        members of your organization out of results in flight): when it differs from this key, or is missing, a
        warning says so; ``util.generate_private_key`` or ``organization.update(public_key=...)`` changes it.
        Unencrypted collaborations always use plain base64, whatever is set up here.
        """
        key_file = private_key_file if private_key_file is not None else private_key_path
        if key_file is None:
            self.cryptor = DummyCryptor()
            self.log("Encryption disabled: only unencrypted collaborations can be used")
            return self.cryptor
        try:
            self.cryptor = RSACryptor(key_file)
        except EncryptionError as exc:
            raise EncryptionSetupError(f"cannot set up encryption: {exc}") from None
        self.log(f"End-to-end encryption set up with the private key {os.fspath(key_file)}")
        if self.whoami and self.whoami.get("organization_id") is not None:
            try:
                on_server = self.request_json("GET", f"/organization/{self._whoami_org()}").get("public_key")
            except FederaError:
                on_server = None
            if on_server != self.cryptor.public_key_str:
                message = ("the public key of your organization on the server " +
                           ("is missing" if not on_server else "does not match this private key") +
                           ": results for your organization cannot be read with it; upload it with "
                           "client.organization.update(public_key=client.cryptor.public_key_str)")
                warnings.warn(message, UserWarning, stacklevel=2)
                self.log(message)
        return self.cryptor

    def _cryptor_for(self, encrypted: bool, what: str) -> CryptorBase:
        if not encrypted:
            return DummyCryptor()
        if isinstance(self.cryptor, RSACryptor):
            return self.cryptor
        raise EncryptionSetupError(
            f"{what} is encrypted: call client.setup_encryption('<private key file of your organization>') first")

    def decrypt_payload(self, data: Optional[str], what: str = "the result") -> Any:
        """Decrypt (or base64-decode) a ``result``/``input`` string and read it: a ``json.`` payload gives its
        value; anything else (a pickle, an unknown format) gives the raw bytes with an
        :class:`~federa_client.serialization.UnsafePayloadWarning`. Nothing is ever unpickled (see
        docs/security.md). ``None`` and empty payloads give ``None``."""
        if data is None:
            return None
        encrypted = "$" in data  # base64 never contains "$"; encrypted strings always do
        cryptor = self._cryptor_for(encrypted, what)
        try:
            raw = cryptor.decrypt_str_to_bytes(data)
        except EncryptionError as exc:
            raise DecryptionError(f"cannot decrypt {what}: {exc}") from None
        if not raw:
            return None
        try:
            return read_payload(raw, what)
        except (ValueError, UnicodeDecodeError) as exc:
            raise DecryptionError(f"cannot read {what}: it says it is JSON but is not valid JSON "
                                  f"({type(exc).__name__})") from None
