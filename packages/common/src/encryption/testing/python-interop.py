"""Test helper for rsa-cryptor.test.ts: the vantage6 3.x Python procedure, written directly against the
`cryptography` library (not Federa's Python client), so the TypeScript side is checked against the
reference behaviour.

Reads one JSON request on stdin, writes one JSON answer on stdout. Operations:
  {"op": "decrypt", "private_key_pem": str, "data": str}           -> {"plaintext_b64": str}
  {"op": "encrypt", "public_key_b64": str, "plaintext_b64": str}   -> {"data": str}
  {"op": "public_key", "private_key_pem": str}                     -> {"public_key_b64": str}
"""
import base64
import json
import os
import sys

from cryptography.hazmat.backends import default_backend
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


def load_private(pem):
    return serialization.load_pem_private_key(pem.encode(), password=None, backend=default_backend())


def public_b64(private_key):
    pem = private_key.public_key().public_bytes(
        encoding=serialization.Encoding.PEM,
        format=serialization.PublicFormat.SubjectPublicKeyInfo,
    )
    return base64.b64encode(pem).decode()


def decrypt(private_key, data):
    ek, iv, ct = (base64.b64decode(p) for p in data.split("$"))
    key = private_key.decrypt(ek, padding.PKCS1v15())
    decryptor = Cipher(algorithms.AES(key), modes.CTR(iv), backend=default_backend()).decryptor()
    return decryptor.update(ct) + decryptor.finalize()


def encrypt(public_key_b64, plaintext):
    public_key = serialization.load_pem_public_key(base64.b64decode(public_key_b64), backend=default_backend())
    key, iv = os.urandom(32), os.urandom(16)
    encryptor = Cipher(algorithms.AES(key), modes.CTR(iv), backend=default_backend()).encryptor()
    ct = encryptor.update(plaintext) + encryptor.finalize()
    ek = public_key.encrypt(key, padding.PKCS1v15())
    return "$".join(base64.b64encode(p).decode() for p in (ek, iv, ct))


def main():
    req = json.load(sys.stdin)
    op = req["op"]
    if op == "decrypt":
        out = {"plaintext_b64": base64.b64encode(decrypt(load_private(req["private_key_pem"]), req["data"])).decode()}
    elif op == "encrypt":
        out = {"data": encrypt(req["public_key_b64"], base64.b64decode(req["plaintext_b64"]))}
    elif op == "public_key":
        out = {"public_key_b64": public_b64(load_private(req["private_key_pem"]))}
    else:
        raise SystemExit(f"unknown op {op!r}")
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
