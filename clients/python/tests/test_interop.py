"""Cross-language checks: data encrypted by the TypeScript encryption module (@federa/common, run with node) is
read by the Python client, and data the Python client encrypts is read by the TypeScript module. Once directly,
and once through the server with a node whose cryptography is the TypeScript one."""

from __future__ import annotations

import base64
import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import COMMON_DIST, REPO, build_if_needed
from federa_client.encryption import RSACryptor
from federa_client.exceptions import DecryptionError, EncryptionSetupError
from federa_client.sealed_log import SEALED_LOG_HEADER, SealedLogOpener
from federa_client.serialization import deserialize
from nodesim import NodeSim

HELPER = Path(__file__).parent / "ts_crypto.mjs"
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def ts():
    """Call the TypeScript encryption module: ``ts(op, **fields)`` (see ts_crypto.mjs)."""
    if not COMMON_DIST.exists():
        build_if_needed()

    def call(op: str, **fields):
        done = subprocess.run(["node", str(HELPER)], input=json.dumps({"op": op, **fields}), cwd=REPO,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout)

    return call


def test_typescript_encrypts_python_decrypts(ts, keys):
    key = keys("interop-python")
    cryptor = RSACryptor(key)
    assert ts("public_key", private_key_pem=key.read_text())["public_key_b64"] == cryptor.public_key_str
    for plaintext in (b"", b"json.{\"x\": 1}", os.urandom(70_000)):
        data = ts("encrypt", private_key_pem=key.read_text(), public_key_b64=cryptor.public_key_str,
                  plaintext_b64=base64.b64encode(plaintext).decode())["data"]
        assert data.count("$") == 2
        assert cryptor.decrypt_str_to_bytes(data) == plaintext


def test_python_encrypts_typescript_decrypts(ts, keys):
    key = keys("interop-typescript")
    cryptor = RSACryptor(key)
    for plaintext in (b"", b"pickle.\x80\x04K\x01.", os.urandom(70_000)):
        data = cryptor.encrypt_bytes_to_str(plaintext, cryptor.public_key_str)
        answer = ts("decrypt", private_key_pem=key.read_text(), data=data)
        assert base64.b64decode(answer["plaintext_b64"]) == plaintext


def test_python_opens_a_run_log_the_typescript_node_sealed(ts, keys):
    """docs/run-logs.md#encrypted-collaborations: the same framing on both sides; a growing log is opened piece by
    piece; another key or none is a clear error."""
    key = keys("interop-sealed-log")
    cryptor = RSACryptor(key)
    note = "[federa server] the live log of this run reached 1024 characters\n"
    pieces = ["row 1\n", "héllo ✓ row 2\n", "partial"]
    log = ts("seal_log", private_key_pem=key.read_text(), public_key_b64=cryptor.public_key_str, pieces=pieces,
             note=note)["log"]
    assert log.startswith(SEALED_LOG_HEADER) and "row" not in log
    opener = SealedLogOpener(cryptor)
    lines = log.split("\n")
    assert opener.open("\n".join(lines[:2]) + "\n") == "row 1\n"
    assert opener.open(log) == "".join(pieces) + note
    with pytest.raises(DecryptionError, match=r"^line 2 of this run's log does not decrypt with this private key"):
        SealedLogOpener(RSACryptor(keys("interop-sealed-log-other"))).open(log)
    with pytest.raises(EncryptionSetupError, match="setup_encryption"):
        SealedLogOpener(None).open(log)
    assert SealedLogOpener(None).open("a plain log\n") == "a plain log\n"


def test_fixture_vector_of_the_typescript_module(ts):
    vector = json.loads((FIXTURES / "vector.json").read_text())
    pem = (FIXTURES / "TEST-ONLY-private-key.pem").read_text()
    python = RSACryptor(FIXTURES / "TEST-ONLY-private-key.pem")
    assert python.decrypt_str_to_bytes(vector["ciphertext"]) == base64.b64decode(vector["plaintext_b64"])
    assert ts("decrypt", private_key_pem=pem, data=vector["ciphertext"])["plaintext_b64"] == vector["plaintext_b64"]


def test_task_round_trip_with_a_typescript_node(root, root_key, keys, server, unique, ts):
    """The Python client posts an encrypted task; the node's cryptography is the TypeScript module: it decrypts
    the input and encrypts the output for the initiator; the Python client decrypts the result."""
    org = root.organization.create(unique("ts-org"))["id"]
    collab = root.collaboration.create(unique("ts-collab"), [root.whoami["organization_id"], org], encrypted=True)
    node = NodeSim(server.api, root.node.create(collab["id"], organization_id=org)["api_key"])
    node_key = keys("ts-node").read_text()
    node.upload_public_key(ts("public_key", private_key_pem=node_key)["public_key_b64"])
    root.setup_encryption(root_key)

    task_input = {"method": "median", "args": [[3, 1, 2]], "kwargs": {}}
    task = root.task.create(collab["id"], [org], name="ts node", image="example/median", description="",
                            input_=task_input)

    result = node.result_for(task["id"])
    plain = base64.b64decode(ts("decrypt", private_key_pem=node_key, data=result["input"])["plaintext_b64"])
    assert deserialize(plain) == {**task_input, "output_format": "json"}
    output = b"json." + json.dumps({"median": 2, "by": "typescript"}).encode()
    encrypted_output = ts("encrypt", private_key_pem=node_key, public_key_b64=node.initiator_public_key(result),
                          plaintext_b64=base64.b64encode(output).decode())["data"]
    node.finish(result["id"], encrypted_output)

    [done] = root.wait_for_results(task["id"], interval=0.2, timeout=30)
    assert done["result"] == {"median": 2, "by": "typescript"}
