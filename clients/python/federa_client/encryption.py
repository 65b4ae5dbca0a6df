"""End-to-end encryption of task inputs and results, wire-compatible with vantage6 3.x.

Two modes, chosen by the collaboration's ``encrypted`` flag:

* :class:`DummyCryptor` (unencrypted collaborations): plain standard base64 both ways.
* :class:`RSACryptor` (encrypted collaborations): ``base64(EK) + "$" + base64(IV) + "$" + base64(C)``, where
  ``C`` is AES-256-CTR of the payload under a fresh random 32-byte key ``K`` with the 16-byte ``IV`` as the
  complete initial counter block, and ``EK`` is ``K`` encrypted with the recipient's RSA public key using
  PKCS#1 v1.5 padding.

Public keys travel as standard padded base64 of the SubjectPublicKeyInfo PEM text. See docs/encryption.md.
Depends only on the standard library and ``cryptography``.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from pathlib import Path
from typing import Any, Iterable, Iterator, Union

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

__all__ = [
    "EncryptionError",
    "CryptorBase",
    "DummyCryptor",
    "RSACryptor",
    "create_new_rsa_key",
    "encode_base64",
    "decode_base64",
    "public_key_str_of",
]

AES_KEY_BYTES = 32
IV_BYTES = 16
SEPARATOR = "$"
DEFAULT_KEY_BITS = 4096

_NOT_BASE64 = re.compile(r"[^A-Za-z0-9+/]")


class EncryptionError(ValueError):
    """Any failure of the encryption layer. Messages say what was wrong and contain no key material."""


def encode_base64(data: bytes) -> str:
    """Standard base64 with ``=`` padding and no line breaks."""
    return base64.b64encode(data).decode("ascii")


def decode_base64(text: str, what: str = "the data") -> bytes:
    """Lenient standard base64 decoding: characters outside the alphabet are ignored, padding may be missing.

    Everything after the first ``=`` is ignored. Data that cannot form whole bytes (4n+1 characters) raises
    :class:`EncryptionError`.
    """
    data = _NOT_BASE64.sub("", text.split("=", 1)[0])
    if len(data) % 4 == 1:
        raise EncryptionError(
            f"{what} is not valid base64: {len(data)} data characters cannot encode whole bytes"
        )
    try:
        return base64.b64decode(data + "=" * (-len(data) % 4))
    except binascii.Error as exc:  # pragma: no cover - excluded by the checks above
        raise EncryptionError(f"{what} is not valid base64") from exc


def public_key_str_of(private_key: rsa.RSAPrivateKey) -> str:
    """The wire form of the public key of ``private_key``: base64 of its SubjectPublicKeyInfo PEM."""
    pem = private_key.public_key().public_bytes(
        encoding=serialization.Encoding.PEM,
        format=serialization.PublicFormat.SubjectPublicKeyInfo,
    )
    return encode_base64(pem)


def create_new_rsa_key(path: Union[str, os.PathLike], key_size: int = DEFAULT_KEY_BITS,
                       overwrite: bool = False) -> rsa.RSAPrivateKey:
    """Generate an RSA key (exponent 65537) and write it unencrypted as PKCS#1 PEM, readable by its owner only.

    Refuses to replace an existing file unless ``overwrite`` is true. Returns the key.
    """
    private_key = rsa.generate_private_key(public_exponent=65537, key_size=key_size)
    pem = private_key.private_bytes(
        encoding=serialization.Encoding.PEM,
        format=serialization.PrivateFormat.TraditionalOpenSSL,
        encryption_algorithm=serialization.NoEncryption(),
    )
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if overwrite else os.O_EXCL)
    fd = os.open(os.fspath(path), flags, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(pem)
    return private_key


def _load_public_key(pubkey_base64: str) -> rsa.RSAPublicKey:
    if not pubkey_base64 or not pubkey_base64.strip():
        raise EncryptionError(
            "the recipient organization has no public key; its node must upload one before it can receive "
            "encrypted data"
        )
    try:
        key = serialization.load_pem_public_key(decode_base64(pubkey_base64, "the public key"))
    except (ValueError, TypeError) as exc:
        raise EncryptionError(
            'the recipient public key is not base64 of a PEM public key ("-----BEGIN PUBLIC KEY-----")'
        ) from exc
    if not isinstance(key, rsa.RSAPublicKey):
        raise EncryptionError("the recipient public key is not an RSA key")
    return key


class CryptorBase:
    """Common interface of both modes."""

    #: True for the RSA/AES mode.
    encrypted = False

    @property
    def public_key_str(self) -> str:
        """This party's public key in wire form; ``""`` in unencrypted mode."""
        return ""

    def encrypt_bytes_to_str(self, data: bytes, pubkey_base64: str) -> str:
        raise NotImplementedError

    def decrypt_str_to_bytes(self, data: str) -> bytes:
        raise NotImplementedError


class DummyCryptor(CryptorBase):
    """Unencrypted collaborations: base64 of the bytes; the recipient key is ignored."""

    def encrypt_bytes_to_str(self, data: bytes, pubkey_base64: str = "") -> str:
        return encode_base64(bytes(data))

    def decrypt_str_to_bytes(self, data: str) -> bytes:
        return decode_base64(data, "the unencrypted payload")


class RSACryptor(CryptorBase):
    """Encrypted collaborations (RSA PKCS#1 v1.5 key wrap + AES-256-CTR).

    :param private_key_path: an unencrypted PEM private key file (PKCS#1 or PKCS#8).
    """

    encrypted = True

    def __init__(self, private_key_path: Union[str, os.PathLike]):
        path = Path(private_key_path)
        try:
            pem = path.read_bytes()
        except OSError as exc:
            raise EncryptionError(f"cannot read the private key file {path}") from exc
        if b"ENCRYPTED" in pem:
            raise EncryptionError(
                f"{path}: the private key is protected by a passphrase; use an unencrypted PEM key"
            )
        try:
            key = serialization.load_pem_private_key(pem, password=None)
        except (ValueError, TypeError) as exc:
            raise EncryptionError(f"{path}: the private key is not a readable PEM private key") from exc
        if not isinstance(key, rsa.RSAPrivateKey):
            raise EncryptionError(f"{path}: end-to-end encryption needs an RSA private key")
        self.private_key: rsa.RSAPrivateKey = key
        self._public_key_str = public_key_str_of(key)

    @property
    def public_key_str(self) -> str:
        return self._public_key_str

    @property
    def key_block_bytes(self) -> int:
        """Length of every RSA key block made for this key (512 for 4096-bit keys)."""
        return self.private_key.key_size // 8

    def public_key_matches(self, server_public_key: str | None) -> bool:
        """Whether the server's ``public_key`` decodes to exactly the PEM of this key."""
        if not server_public_key:
            return False
        try:
            stored = decode_base64(server_public_key, "the public key")
        except EncryptionError:
            return False
        return stored == base64.b64decode(self._public_key_str)

    def encrypt_bytes_to_str(self, data: bytes, pubkey_base64: str) -> str:
        public_key = _load_public_key(pubkey_base64)
        key = os.urandom(AES_KEY_BYTES)
        iv = os.urandom(IV_BYTES)
        encryptor = Cipher(algorithms.AES(key), modes.CTR(iv)).encryptor()
        ciphertext = encryptor.update(bytes(data)) + encryptor.finalize()
        encrypted_key = public_key.encrypt(key, padding.PKCS1v15())
        return SEPARATOR.join(encode_base64(part) for part in (encrypted_key, iv, ciphertext))

    def decrypt_str_to_bytes(self, data: str) -> bytes:
        parts = data.split(SEPARATOR)
        if len(parts) != 3:
            hint = " (is this collaboration unencrypted?)" if len(parts) == 1 else ""
            raise EncryptionError(
                'encrypted data must be three base64 parts separated by "$" (key block, IV, ciphertext); '
                f"got {len(parts)} part(s){hint}"
            )
        ciphertext = decode_base64(parts[2], "the ciphertext (third part)")
        decryptor = self.decryptor_for(parts[0], parts[1])
        return decryptor.update(ciphertext) + decryptor.finalize()

    def decryptor_for(self, key_block_part: str, iv_part: str) -> Any:
        """The AES-CTR decryptor of a message from its first two parts (base64 key block and IV); the whole-string
        decryption and :func:`decrypt_stream` share it."""
        encrypted_key = decode_base64(key_block_part, "the key block (first part)")
        iv = decode_base64(iv_part, "the IV (second part)")
        if len(iv) != IV_BYTES:
            raise EncryptionError(f"the IV (second part) is {len(iv)} bytes; expected {IV_BYTES}")
        expected = self.key_block_bytes
        if len(encrypted_key) != expected:
            raise EncryptionError(
                f"the key block (first part) is {len(encrypted_key)} bytes; this {expected * 8}-bit private key "
                f"expects {expected} (was the data encrypted for another organization's key?)"
            )
        try:
            key = self.private_key.decrypt(encrypted_key, padding.PKCS1v15())
        except ValueError:
            key = b""
        if len(key) != AES_KEY_BYTES:
            raise EncryptionError(
                f"the key block (first part) does not decrypt to a {AES_KEY_BYTES}-byte AES key with this private "
                "key (encrypted for another organization's key, or corrupted)"
            )
        return Cipher(algorithms.AES(key), modes.CTR(iv)).decryptor()


#: The longest first two parts accepted by :func:`decrypt_stream`.
MAX_HEADER_CHARS = 4096
_NOT_BASE64_BYTES = re.compile(rb"[^A-Za-z0-9+/]")


def decrypt_stream(cryptor: CryptorBase, chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The plaintext of an encrypted (or, with a :class:`DummyCryptor`, base64) payload that arrives in pieces, as
    it comes (docs/encryption.md#streams): the first two parts are read, the key unwrapped, then the base64 of the
    ciphertext is decoded and deciphered a piece at a time."""
    encrypted = isinstance(cryptor, RSACryptor)
    header = b"" if encrypted else None
    decryptor = None
    rest = b""
    ended = False
    for chunk in chunks:
        if header is not None:
            header += chunk
            parts = header.split(b"$", 2)
            if len(parts) < 3:
                if len(header) > MAX_HEADER_CHARS:
                    raise EncryptionError("encrypted data must be three base64 parts separated by \"$\" "
                                          f"(key block, IV, ciphertext); got {len(parts)} part(s)")
                continue
            decryptor = cryptor.decryptor_for(parts[0].decode("latin-1"), parts[1].decode("latin-1"))
            chunk = parts[2]
            header = None
        if ended:
            continue
        eq = chunk.find(b"=")
        if eq != -1:
            ended = True
            chunk = chunk[:eq]
        data = rest + _NOT_BASE64_BYTES.sub(b"", chunk)
        whole = len(data) - len(data) % 4
        rest = data[whole:]
        piece = base64.b64decode(data[:whole]) if whole else b""
        if piece:
            yield decryptor.update(piece) if decryptor is not None else piece
    if header is not None:
        hint = " (is this collaboration unencrypted?)" if b"$" not in header else ""
        raise EncryptionError("encrypted data must be three base64 parts separated by \"$\" "
                              f"(key block, IV, ciphertext); got {len(header.split(b'$'))} part(s){hint}")
    if len(rest) % 4 == 1:
        raise EncryptionError("the ciphertext (third part) is not valid base64: its data characters cannot encode "
                              "whole bytes")
    last = base64.b64decode(rest + b"=" * (-len(rest) % 4)) if rest else b""
    if decryptor is not None:
        last = decryptor.update(last) + decryptor.finalize()
    if last:
        yield last
