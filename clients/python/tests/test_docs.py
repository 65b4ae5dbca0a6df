"""The examples of docs/client-python.md work as written: every ```python block runs, in order, against the test
server (only the address is replaced and the password prompts are answered). The test plays the node of
"Hospital A" once the example has registered it."""

from __future__ import annotations

import json
import re
import threading

from conftest import REPO, ROOT_PASSWORD
from federa_client.encryption import RSACryptor
from federa_client.serialization import deserialize
from nodesim import NodeSim

DOC = REPO / "docs" / "client-python.md"


def python_blocks():
    return re.findall(r"^```python\n(.*?)^```", DOC.read_text(), flags=re.S | re.M)


class HospitalNode(threading.Thread):
    """Answers every task of its node as federa/average-python's partial_average would, for made-up ages."""

    def __init__(self, api, api_key, key_path):
        super().__init__(daemon=True)
        self.node = NodeSim(api, api_key)
        self.cryptor = RSACryptor(key_path)
        self.node.upload_public_key(self.cryptor.public_key_str)
        self.stop = threading.Event()
        self.inputs = []
        self.error = None

    def run(self):
        try:
            while not self.stop.wait(0.2):
                for result in self.node.open_results():
                    payload = deserialize(self.cryptor.decrypt_str_to_bytes(result["input"]))
                    self.inputs.append(payload)
                    # As federa/average-python answers (algorithms/README.md): only its own methods.
                    if payload.get("method") not in ("partial_average", "central_average"):
                        raise AssertionError(f"the example image has no method {payload.get('method')!r}")
                    output = b"json." + json.dumps({"sum": 85.0, "count": 2}).encode()
                    self.node.finish(result["id"], self.cryptor.encrypt_bytes_to_str(
                        output, self.node.initiator_public_key(result)))
        except Exception as exc:  # reported by the test
            self.error = exc


def test_examples_run_as_written(server, root, root_key, keys, tmp_path, monkeypatch, capsys):
    blocks = python_blocks()
    assert len(blocks) >= 6
    answers = {"Password of root: ": ROOT_PASSWORD, "Password for alice: ": "Alice-Pass-2024!"}
    monkeypatch.setattr("getpass.getpass", lambda prompt="Password: ": answers[prompt])
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "docs_example"}
    hospital = None
    try:
        for block in blocks:
            code = block.replace('Client("http://localhost", 5000', f'Client("http://{server.host}", {server.port}')
            exec(compile(code, str(DOC), "exec"), namespace)  # noqa: S102 - our own documentation
            if hospital is None and "node" in namespace and "api_key" in namespace["node"]:
                hospital = HospitalNode(server.api, namespace["node"]["api_key"], keys("docs-hospital"))
                hospital.start()
    finally:
        if hospital is not None:
            hospital.stop.set()
            hospital.join(timeout=10)
        # The example published a new key for the root organization: put the tests' key back.
        root.organization.update(root.whoami["organization_id"], public_key=RSACryptor(root_key).public_key_str)

    assert hospital is not None and hospital.error is None
    assert hospital.inputs == [{"method": "partial_average", "kwargs": {"column": "age"}, "output_format": "json"}]
    out = capsys.readouterr().out
    assert "-> {'sum': 85.0, 'count': 2}" in out
    assert "[federa] Encrypting input for organization" in out
    assert "no such collaboration:" in out
    assert ROOT_PASSWORD not in out and "Alice-Pass-2024!" not in out
    assert root.user.get(namespace["alice"]["id"])["lastname"] == "de Vries"
    assert (tmp_path / "my-organization.pem").exists()


def test_every_public_method_is_documented():
    """docs/client-python.md names every public method of the client and of each resource."""
    from federa_client import Client

    text = DOC.read_text()
    client = Client("localhost", 5000)
    missing = []
    for group in ("", "util", "user", "organization", "collaboration", "node", "task", "result", "role", "rule"):
        target = getattr(client, group) if group else client
        for name in dir(type(target)):
            if name.startswith("_") or not callable(getattr(target, name)):
                continue
            if f"{name}(" not in text and f"`{name}`" not in text:
                missing.append(f"{group}.{name}" if group else name)
    assert missing == []
