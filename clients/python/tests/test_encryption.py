"""Tests of federa_client.encryption. Run: /usr/bin/python3 -m pytest clients/python/tests/test_encryption.py"""

import base64
import json
import os
import stat
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from federa_client.encryption import (  # noqa: E402
    DummyCryptor,
    EncryptionError,
    RSACryptor,
    create_new_rsa_key,
    decode_base64,
    decrypt_stream,
)

FIXTURES = Path(__file__).parent / "fixtures"
VECTOR = json.loads((FIXTURES / "vector.json").read_text())


@pytest.fixture(scope="module")
def key_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("keys") / "private_key.pem"
    create_new_rsa_key(path)  # 4096 bits, once for this module
    return path


@pytest.fixture(scope="module")
def cryptor(key_path):
    return RSACryptor(key_path)


def parts_of(text):
    return [base64.b64decode(p) for p in text.split("$")]


def join(*parts):
    return "$".join(base64.b64encode(p).decode() for p in parts)


# --- the fixed vector produced by the TypeScript implementation ------------------------------------------

def test_decrypts_the_typescript_vector():
    c = RSACryptor(FIXTURES / "TEST-ONLY-private-key.pem")
    assert c.public_key_str == VECTOR["public_key_b64"]
    assert c.decrypt_str_to_bytes(VECTOR["ciphertext"]) == base64.b64decode(VECTOR["plaintext_b64"])
    assert c.decrypt_str_to_bytes(VECTOR["empty_plaintext_ciphertext"]) == b""
    assert VECTOR["empty_plaintext_ciphertext"].endswith("$")


def test_encrypts_for_the_fixture_key_in_the_same_shape():
    c = RSACryptor(FIXTURES / "TEST-ONLY-private-key.pem")
    plaintext = base64.b64decode(VECTOR["plaintext_b64"])
    text = c.encrypt_bytes_to_str(plaintext, VECTOR["public_key_b64"])
    assert [len(p) for p in text.split("$")[:2]] == [len(p) for p in VECTOR["ciphertext"].split("$")[:2]]
    assert c.decrypt_str_to_bytes(text) == plaintext


# --- keys ---------------------------------------------------------------------------------------------------

def test_create_new_rsa_key_writes_pkcs1_4096_owner_only(key_path, cryptor):
    pem = key_path.read_bytes()
    assert pem.startswith(b"-----BEGIN RSA PRIVATE KEY-----\n")
    assert stat.S_IMODE(os.stat(key_path).st_mode) == 0o600
    assert cryptor.private_key.key_size == 4096
    assert cryptor.private_key.public_key().public_numbers().e == 65537
    with pytest.raises(FileExistsError):
        create_new_rsa_key(key_path, key_size=2048)


def test_public_key_str_is_base64_of_spki_pem(cryptor):
    pem = base64.b64decode(cryptor.public_key_str).decode()
    lines = pem.split("\n")
    assert lines[0] == "-----BEGIN PUBLIC KEY-----"
    assert lines[-2:] == ["-----END PUBLIC KEY-----", ""]
    assert all(len(line) == 64 for line in lines[1:-3])
    assert 1000 < len(cryptor.public_key_str) < 1100
    assert cryptor.public_key_str == base64.b64encode(pem.encode()).decode()


def test_public_key_matches(cryptor):
    assert cryptor.public_key_matches(cryptor.public_key_str)
    pem = base64.b64decode(cryptor.public_key_str)
    assert not cryptor.public_key_matches(base64.b64encode(pem.rstrip(b"\n")).decode())
    assert not cryptor.public_key_matches(VECTOR["public_key_b64"])
    assert not cryptor.public_key_matches("")
    assert not cryptor.public_key_matches(None)


def test_loads_pkcs8(tmp_path, cryptor):
    pkcs8 = cryptor.private_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    path = tmp_path / "pkcs8.pem"
    path.write_bytes(pkcs8)
    assert RSACryptor(path).public_key_str == cryptor.public_key_str


def test_refuses_bad_private_keys(tmp_path):
    with pytest.raises(EncryptionError, match="cannot read the private key file"):
        RSACryptor(tmp_path / "missing.pem")
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a key")
    with pytest.raises(EncryptionError, match="not a readable PEM private key"):
        RSACryptor(garbage)
    protected = tmp_path / "protected.pem"
    protected.write_bytes(
        rsa.generate_private_key(65537, 2048).private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"secret"),
        )
    )
    with pytest.raises(EncryptionError, match="passphrase"):
        RSACryptor(protected)


# --- round trips and format ----------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [0, 1, 37, 1024 * 1024])
def test_rsa_round_trip(cryptor, size):
    plaintext = os.urandom(size)
    assert cryptor.decrypt_str_to_bytes(cryptor.encrypt_bytes_to_str(plaintext, cryptor.public_key_str)) == plaintext


def test_rsa_format(cryptor):
    plaintext = b"hello federa, 31 bytes of data!"
    text = cryptor.encrypt_bytes_to_str(plaintext, cryptor.public_key_str)
    raw = text.split("$")
    assert len(raw) == 3
    assert len(raw[0]) == 684 and raw[0].endswith("=")
    assert len(raw[1]) == 24 and raw[1].endswith("==")
    ek, iv, ct = parts_of(text)
    assert (len(ek), len(iv), len(ct)) == (512, 16, len(plaintext))
    assert cryptor.encrypt_bytes_to_str(b"", cryptor.public_key_str).endswith("$")


def test_iv_is_the_full_128_bit_counter_block(cryptor):
    ek, _, _ = parts_of(cryptor.encrypt_bytes_to_str(b"", cryptor.public_key_str))
    from_all_ones = cryptor.decrypt_str_to_bytes(join(ek, b"\xff" * 16, bytes(32)))
    from_zero = cryptor.decrypt_str_to_bytes(join(ek, bytes(16), bytes(16)))
    assert from_all_ones[16:] == from_zero


def test_reference_procedure_decrypts_our_output(cryptor):
    """Independent of our decrypt: the plain cryptography procedure."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    plaintext = os.urandom(1000)
    ek, iv, ct = parts_of(cryptor.encrypt_bytes_to_str(plaintext, cryptor.public_key_str))
    key = cryptor.private_key.decrypt(ek, padding.PKCS1v15())
    d = Cipher(algorithms.AES(key), modes.CTR(iv)).decryptor()
    assert d.update(ct) + d.finalize() == plaintext


def test_lenient_base64(cryptor):
    text = cryptor.encrypt_bytes_to_str(b"lenient", cryptor.public_key_str)
    sloppy = "$".join(p.rstrip("=")[:40] + "\n" + p.rstrip("=")[40:] for p in text.split("$"))
    assert cryptor.decrypt_str_to_bytes(sloppy) == b"lenient"
    assert decode_base64("aGVsbG8") == b"hello"
    with pytest.raises(EncryptionError, match="not valid base64"):
        decode_base64("aGVsb")


# --- bad input ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "data, message",
    [
        ("aGVsbG8=", r"three base64 parts.*got 1 part.*unencrypted"),
        ("YQ==$YQ==", r"got 2 part"),
        ("YQ==$YQ==$YQ==$YQ==", r"got 4 part"),
    ],
)
def test_rejects_wrong_number_of_parts(cryptor, data, message):
    with pytest.raises(EncryptionError, match=message):
        cryptor.decrypt_str_to_bytes(data)


@pytest.mark.parametrize("length", [0, 15, 17])
def test_rejects_bad_iv(cryptor, length):
    ek, _, ct = parts_of(cryptor.encrypt_bytes_to_str(b"payload", cryptor.public_key_str))
    with pytest.raises(EncryptionError, match=rf"the IV \(second part\) is {length} bytes; expected 16"):
        cryptor.decrypt_str_to_bytes(join(ek, os.urandom(length), ct))


def test_rejects_key_block_of_wrong_length(cryptor):
    _, iv, ct = parts_of(cryptor.encrypt_bytes_to_str(b"payload", cryptor.public_key_str))
    with pytest.raises(EncryptionError, match="is 256 bytes; this 4096-bit private key expects 512"):
        cryptor.decrypt_str_to_bytes(join(os.urandom(256), iv, ct))


def test_rejects_data_for_another_key(cryptor):
    other = RSACryptor(FIXTURES / "TEST-ONLY-private-key.pem")
    text = cryptor.encrypt_bytes_to_str(b"x", other.public_key_str)
    with pytest.raises(EncryptionError, match="is 256 bytes"):
        cryptor.decrypt_str_to_bytes(text)


def test_rejects_corrupted_key_block(cryptor):
    ek, iv, ct = parts_of(cryptor.encrypt_bytes_to_str(b"payload", cryptor.public_key_str))
    ek = bytearray(ek)
    ek[100] ^= 1
    with pytest.raises(EncryptionError, match="does not decrypt to a 32-byte AES key") as info:
        cryptor.decrypt_str_to_bytes(join(bytes(ek), iv, ct))
    assert base64.b64encode(iv).decode() not in str(info.value)


@pytest.mark.parametrize("length", [0, 16, 33])
def test_rejects_wrapped_key_of_wrong_length(cryptor, length):
    _, iv, ct = parts_of(cryptor.encrypt_bytes_to_str(b"payload", cryptor.public_key_str))
    block = cryptor.private_key.public_key().encrypt(os.urandom(length), padding.PKCS1v15())
    with pytest.raises(EncryptionError, match="does not decrypt to a 32-byte AES key"):
        cryptor.decrypt_str_to_bytes(join(block, iv, ct))


@pytest.mark.parametrize("pubkey, message", [("", "has no public key"), ("aGVsbG8=", "not base64 of a PEM")])
def test_rejects_bad_recipient_key(cryptor, pubkey, message):
    with pytest.raises(EncryptionError, match=message):
        cryptor.encrypt_bytes_to_str(b"x", pubkey)


# --- dummy mode ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [0, 1, 2, 3, 1024 * 1024])
def test_dummy_round_trip(size):
    c = DummyCryptor()
    data = os.urandom(size)
    text = c.encrypt_bytes_to_str(data, "ignored")
    assert "$" not in text
    assert text == base64.b64encode(data).decode()
    assert c.decrypt_str_to_bytes(text) == data


def test_dummy_mode_properties():
    c = DummyCryptor()
    assert c.public_key_str == ""
    assert c.encrypted is False
    assert c.decrypt_str_to_bytes("aGVs\nbG8") == b"hello"


# --- streams (docs/encryption.md#streams) -----------------------------------------------------------------
def _pieces(data: bytes, sizes):
    at, i = 0, 0
    while at < len(data):
        size = sizes[i % len(sizes)]
        yield data[at:at + size]
        at, i = at + size, i + 1


@pytest.mark.parametrize("size", [0, 1, 2, 3, 1000, 65_537])
def test_decrypt_stream_reads_what_encrypt_bytes_to_str_makes(cryptor, size):
    data = os.urandom(size)
    text = cryptor.encrypt_bytes_to_str(data, cryptor.public_key_str).encode()
    assert b"".join(decrypt_stream(cryptor, _pieces(text, [1, 5, 333, 4096]))) == data
    plain = DummyCryptor().encrypt_bytes_to_str(data).encode()
    assert b"".join(decrypt_stream(DummyCryptor(), _pieces(plain, [3, 1, 999]))) == data


def test_decrypt_stream_refuses_a_payload_without_its_two_first_parts(cryptor):
    with pytest.raises(EncryptionError, match="is this collaboration unencrypted"):
        list(decrypt_stream(cryptor, [b"QUJD"]))
    with pytest.raises(EncryptionError, match="three base64 parts"):
        list(decrypt_stream(cryptor, _pieces(b"A" * 10_000, [100])))
