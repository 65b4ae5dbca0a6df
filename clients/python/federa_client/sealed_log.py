"""Sealed run logs (docs/run-logs.md#encrypted-collaborations): in an encrypted collaboration a node seals each
piece of a run's log for the organization that created the task. The stored log is lines: the header below, then
one ``sealed:<piece encrypted like a result>`` line per piece, and the server's notes as plain lines."""

from __future__ import annotations

from typing import Optional

from .encryption import CryptorBase, EncryptionError, RSACryptor
from .exceptions import DecryptionError, EncryptionSetupError

__all__ = ["SEALED_LOG_HEADER", "SEALED_PIECE_PREFIX", "is_sealed_log", "SealedLogOpener"]

#: The first line of every sealed log (the same text as the TypeScript packages').
SEALED_LOG_HEADER = ("[federa sealed log v1] encrypted for the organization that created the task; a Federa client "
                     "with its private key shows it (docs/run-logs.md)\n")
#: How a line holding one sealed piece starts.
SEALED_PIECE_PREFIX = "sealed:"


def is_sealed_log(log: Optional[str]) -> bool:
    """Whether a stored log is sealed (starts with the header)."""
    return isinstance(log, str) and log.startswith(SEALED_LOG_HEADER)


class SealedLogOpener:
    """Opens the sealed logs of one run with the client's private key, decrypting only what was added since the
    last call (a followed log is read many times). A log that is not sealed is returned as it is."""

    def __init__(self, cryptor: Optional[CryptorBase]):
        self._cryptor = cryptor
        self._raw = ""
        self._plain = ""
        self._lines = 0

    def open(self, log: str) -> str:
        if not is_sealed_log(log):
            return log
        if not isinstance(self._cryptor, RSACryptor):
            raise EncryptionSetupError(
                "this run's log is encrypted for the organization that created the task: call "
                "client.setup_encryption('<private key file of that organization>') first")
        if not self._raw or not log.startswith(self._raw):
            self._raw, self._plain, self._lines = SEALED_LOG_HEADER, "", 1
        end = log.rfind("\n") + 1
        if end <= len(self._raw):
            return self._plain
        plain, lines = [self._plain], self._lines
        for line in log[len(self._raw):end - 1].split("\n"):
            lines += 1
            if not line.startswith(SEALED_PIECE_PREFIX):
                plain.append(line + "\n")
                continue
            try:
                piece = self._cryptor.decrypt_str_to_bytes(line[len(SEALED_PIECE_PREFIX):])
            except EncryptionError as exc:
                raise DecryptionError(
                    f"line {lines} of this run's log does not decrypt with this private key ({exc}): the log is "
                    "encrypted for the organization that created the task; use that organization's private key"
                ) from None
            plain.append(piece.decode("utf-8", errors="replace"))
        self._raw, self._plain, self._lines = log[:end], "".join(plain), lines
        return self._plain
