"""Tasks and results against the real server: encrypted and unencrypted round trips, with the test playing the
nodes (nodesim.NodeSim)."""

from __future__ import annotations

import base64
import json
import os
import pickle
from types import SimpleNamespace

import pytest
import requests

from conftest import ROOT_PASSWORD, ROOT_USERNAME
from federa_client import (DecryptionError, EncryptionSetupError, NotFound, PermissionDenied, TaskFailed,
                           TaskTimeout, UnsafePayloadWarning, ValidationError)
from federa_client.encryption import DummyCryptor, EncryptionError, RSACryptor
from federa_client.serialization import deserialize
from nodesim import NodeSim

IMAGE = "harbor.example.org/federa/test-average:1"
INPUT = {"method": "average", "args": ["age"], "kwargs": {"round": 2}, "master": False, "output_format": "json"}


def json_output(value) -> bytes:
    return b"json." + json.dumps(value).encode()


@pytest.fixture(scope="module")
def encrypted(root, root_key, keys, server):
    """An encrypted collaboration of the root organization and organizations A and B, each with a node (played
    by NodeSim) that uploaded its organization's public key."""
    n = id(root) % 10000
    org_a = root.organization.create(f"enc-org-a-{n}")
    org_b = root.organization.create(f"enc-org-b-{n}")
    collab = root.collaboration.create(f"encrypted-{n}", [root.whoami["organization_id"], org_a["id"], org_b["id"]],
                                       encrypted=True)
    nodes, cryptors = {}, {}
    for org in (org_a, org_b):
        created = root.node.create(collab["id"], organization_id=org["id"])
        node = NodeSim(server.api, created["api_key"])
        cryptor = RSACryptor(keys(f"org-{org['id']}"))
        node.upload_public_key(cryptor.public_key_str)
        nodes[org["id"]] = node
        cryptors[org["id"]] = cryptor
    root.setup_encryption(root_key)
    return SimpleNamespace(collab=collab, a=org_a["id"], b=org_b["id"], nodes=nodes, cryptors=cryptors)


def test_encrypted_round_trip(root, encrypted):
    task = root.task.create(encrypted.collab["id"], [encrypted.a, encrypted.b], name="average age", image=IMAGE,
                            description="mean of the age column", input_=INPUT)
    assert task["id"] > 0 and task["initiator"] == root.whoami["organization_id"]
    assert task["image"] == IMAGE and task["database"] == "default" and task["complete"] is False

    # Each organization got its own ciphertext, readable only with its own key.
    result_a = encrypted.nodes[encrypted.a].result_for(task["id"])
    result_b = encrypted.nodes[encrypted.b].result_for(task["id"])
    assert result_a["input"].count("$") == 2 and result_a["input"] != result_b["input"]
    with pytest.raises(EncryptionError):
        encrypted.cryptors[encrypted.b].decrypt_str_to_bytes(result_a["input"])

    # Node A finishes; the task is not complete yet, so a short wait times out.
    seen = {}

    def average(org):
        def compute(raw):
            seen[org] = raw
            return json_output({"organization": org, "average": 41.5 + org})
        return compute

    encrypted.nodes[encrypted.a].run(task["id"], encrypted.cryptors[encrypted.a], average(encrypted.a))
    assert seen[encrypted.a].startswith(b"json.") and deserialize(seen[encrypted.a]) == INPUT  # INPUT names its output_format
    assert root.task.get(task["id"])["complete"] is False
    with pytest.raises(TaskTimeout, match=f"task {task['id']} was not complete after 0.3 seconds"):
        root.wait_for_results(task["id"], interval=0.1, timeout=0.3)

    encrypted.nodes[encrypted.b].run(task["id"], encrypted.cryptors[encrypted.b], average(encrypted.b))
    results = root.wait_for_results(task["id"], interval=0.2, timeout=30)
    by_org = {r["organization"]: r["result"] for r in results}
    assert by_org == {
        encrypted.a: {"organization": encrypted.a, "average": 41.5 + encrypted.a},
        encrypted.b: {"organization": encrypted.b, "average": 41.5 + encrypted.b},
    }

    # result.get decrypts one result; result.list returns them as stored; from_task(decrypt=False) too.
    one = root.result.get(result_a["id"])
    assert one["result"] == {"organization": encrypted.a, "average": 41.5 + encrypted.a}
    assert root.result.get(result_a["id"], include_task=True)["task"]["id"] == task["id"]
    stored = root.result.list_all(task_id=task["id"])
    assert len(stored) == 2 and all(r["result"].count("$") == 2 for r in stored)
    assert {r["id"] for r in root.result.from_task(task["id"], decrypt=False)} == {r["id"] for r in stored}
    assert root.task.get(task["id"])["complete"] is True


class Exploit:
    """Unpickling this creates the folder ``path``: proof that code ran on the researcher's machine."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (os.mkdir, (self.path,))


def test_a_pickled_result_is_never_unpickled(root, encrypted, tmp_path):
    marker = tmp_path / "pwned"
    task = root.task.create(encrypted.collab["id"], [encrypted.a, encrypted.b], name="malicious node", image=IMAGE,
                            description="", input_={"method": "count"})
    evil = b"pickle." + pickle.dumps(Exploit(marker))
    bare = pickle.dumps(Exploit(marker))
    raw_a = encrypted.nodes[encrypted.a].run(task["id"], encrypted.cryptors[encrypted.a], lambda raw: evil)
    encrypted.nodes[encrypted.b].run(task["id"], encrypted.cryptors[encrypted.b], lambda raw: bare)
    # The input asked the algorithm for JSON output (vantage6 images answer in pickle otherwise).
    assert deserialize(raw_a) == {"method": "count", "output_format": "json"}
    with pytest.warns(UnsafePayloadWarning, match=r"result \d+ is a Python pickle; Federa never unpickles"):
        results = root.wait_for_results(task["id"], sleep=0.1, timeout=30)
    assert sorted(r["result"] for r in results) == sorted([evil, bare])
    one = [r for r in results if r["organization"] == encrypted.a][0]
    with pytest.warns(UnsafePayloadWarning, match=f"result {one['id']} is a Python pickle"):
        assert root.result.get(one["id"])["result"] == evil
    assert not marker.exists()


def test_pickle_input_is_refused(root, encrypted):
    for fmt in ("pickle", "legacy"):
        with pytest.raises(ValueError, match=f"data_format '{fmt}' \\(a Python pickle\\) is not supported"):
            root.task.create(encrypted.collab["id"], [encrypted.a], name="p", image=IMAGE, description="",
                             input_={"method": "x"}, data_format=fmt)


def test_a_crashed_run_is_not_reported_as_success(server, root, encrypted, root_key, capsys):
    client = server.client(verbose=True)
    client.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    client.setup_encryption(root_key)
    task = client.task.create(encrypted.collab["id"], [encrypted.a, encrypted.b], name="crash", image=IMAGE,
                              description="", input_=INPUT)
    encrypted.nodes[encrypted.a].run(task["id"], encrypted.cryptors[encrypted.a], lambda raw: json_output(4))
    log = "line\n" * 500 + "Traceback (most recent call last):\nZeroDivisionError: division by zero\n"
    encrypted.nodes[encrypted.b].run(task["id"], encrypted.cryptors[encrypted.b], lambda raw: b"", log=log,
                                     status="crashed")
    with pytest.raises(TaskFailed) as caught:
        client.wait_for_results(task["id"], sleep=0.1, timeout=30)
    error = caught.value
    assert f"task {task['id']} did not succeed: 1 of 2 run(s) failed" in str(error)
    assert f"(organization {encrypted.b}): crashed; log tail:" in str(error)
    assert str(error).endswith("ZeroDivisionError: division by zero") and len(str(error)) < 2000
    assert [r["status"] for r in error.failed] == ["crashed"]
    assert {r["organization"]: r["result"] for r in error.results} == {encrypted.a: 4, encrypted.b: None}
    assert f"Task {task['id']} is complete" not in capsys.readouterr().out


def test_unencrypted_collaboration(root, server, unique):
    org = root.organization.create(unique("plain-org"))
    collab = root.collaboration.create(unique("plain"), [root.whoami["organization_id"], org["id"]])
    assert collab["encrypted"] is False
    node = NodeSim(server.api, root.node.create(collab["id"], organization_id=org["id"])["api_key"])

    fresh = server.client()  # no setup_encryption at all: unencrypted collaborations need none
    fresh.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    task = fresh.task.create(collab["id"], [org["id"]], name="plain", image=IMAGE, description="d",
                             input_={"method": "sum"}, database="other-db")
    assert task["database"] == "other-db"
    stored = node.result_for(task["id"])["input"]
    assert "$" not in stored and base64.b64decode(stored) == b'json.{"method": "sum", "output_format": "json"}'
    node.run(task["id"], DummyCryptor(), lambda raw: json_output([1, "two", None]))
    assert fresh.wait_for_results(task["id"], interval=0.1, timeout=30)[0]["result"] == [1, "two", None]


def test_encrypted_collaboration_needs_a_private_key(server, encrypted):
    fresh = server.client()
    fresh.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    with pytest.raises(EncryptionSetupError, match=r"collaboration \d+ is encrypted: call client.setup_encryption"):
        fresh.task.create(encrypted.collab["id"], [encrypted.a], name="x", image=IMAGE, description="", input_={})
    fresh.setup_encryption(None)
    with pytest.raises(EncryptionSetupError, match="is encrypted"):
        fresh.task.create(encrypted.collab["id"], [encrypted.a], name="x", image=IMAGE, description="", input_={})


def test_organization_without_public_key_cannot_receive(root, encrypted, unique):
    org = root.organization.create(unique("no-key-org"))
    root.collaboration.add_organization(encrypted.collab["id"], org["id"])
    root.node.create(encrypted.collab["id"], organization_id=org["id"])
    with pytest.raises(EncryptionSetupError, match=f"organization {org['id']} has no public key"):
        root.task.create(encrypted.collab["id"], [org["id"]], name="x", image=IMAGE, description="", input_={})


def test_organization_outside_the_collaboration_is_named_as_such(root, encrypted, unique):
    outsider = root.organization.create(unique("outsider"))
    with pytest.raises(ValueError, match=f"organization\\(s\\) {outsider['id']} are not in the collaboration"):
        root.task.create(encrypted.collab["id"], [outsider["id"]], name="x", image=IMAGE, description="", input_={})


def test_result_for_another_key_gives_decryption_error(root, server, encrypted, keys):
    task = root.task.create(encrypted.collab["id"], [encrypted.a], name="wrong key", image=IMAGE, description="",
                            input_=INPUT)
    encrypted.nodes[encrypted.a].run(task["id"], encrypted.cryptors[encrypted.a], lambda raw: json_output(1))
    other = server.client()
    other.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    with pytest.warns(UserWarning, match="does not match this private key"):
        other.setup_encryption(keys("unrelated"))
    with pytest.raises(DecryptionError, match="cannot decrypt result"):
        other.wait_for_results(task["id"], timeout=30)
    assert root.wait_for_results(task["id"], timeout=30)[0]["result"] == 1


def test_task_listing_get_and_delete(root, encrypted):
    task = root.task.create(encrypted.collab["id"], [encrypted.a, encrypted.b], name="to delete", image=IMAGE,
                            description="", input_=INPUT)
    listed = root.task.list_all(collaboration_id=encrypted.collab["id"])
    assert task["id"] in [t["id"] for t in listed]
    assert [t["id"] for t in listed] == sorted((t["id"] for t in listed), reverse=True)
    assert [t["id"] for t in root.task.list_all(name="to delete", collaboration_id=encrypted.collab["id"])] == [task["id"]]
    page = root.task.list_all(collaboration_id=encrypted.collab["id"], page=1, per_page=1)
    assert len(page) == 1 and page.total == len(listed)
    with_results = root.task.get(task["id"], include_results=True)
    assert len(with_results["results"]) == 2 and all("input" in r for r in with_results["results"])
    assert task["id"] in [t["id"] for t in root.collaboration.tasks(encrypted.collab["id"])]
    assert task["id"] in [t["id"] for t in root.node.tasks(encrypted.nodes[encrypted.a].id)]
    assert root.result.from_task(task["id"])[0]["result"] is None  # nothing finished yet

    root.task.delete(task["id"])
    with pytest.raises(NotFound, match=f"GET /task/{task['id']}"):
        root.task.get(task["id"])


def test_verbose_task_messages(server, encrypted, root_key, capsys):
    client = server.client(verbose=True)
    client.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    client.setup_encryption(root_key)
    task = client.task.create(encrypted.collab["id"], [encrypted.a, encrypted.b], name="verbose", image=IMAGE,
                              description="", input_=INPUT)
    out = capsys.readouterr().out
    assert f"Encrypting input for organization {encrypted.a}" in out
    assert f"Encrypting input for organization {encrypted.b}" in out
    assert f"Task {task['id']} created" in out
    assert ROOT_PASSWORD not in out


def test_a_researcher_kills_their_organizations_task_and_its_sub_tasks(root, server, unique):
    """Whoever may post a task may kill it (docs/run-statuses.md#kill): the whole tree ends killed by user."""
    mine = root.organization.create(unique("kill-mine"))["id"]
    theirs = root.organization.create(unique("kill-theirs"))["id"]
    collab = root.collaboration.create(unique("kill"), [mine, theirs])
    node = NodeSim(server.api, root.node.create(collab["id"], organization_id=mine)["api_key"])
    researcher_role = [r["id"] for r in root.role.list_all(name="Researcher")]
    clients = {}
    for org in (mine, theirs):
        name = unique("researcher")
        root.user.create(name, password="User-Pass-123!", email=f"{name}@example.org", firstname="R", lastname="S",
                         organization_id=org, roles=researcher_role)
        clients[org] = server.client()
        clients[org].authenticate(name, "User-Pass-123!")

    with pytest.warns(UserWarning, match="Offline node"):  # NodeSim has no socket: the server calls its node offline
        task = clients[mine].task.create(collab["id"], [mine], name="to kill", image=IMAGE, description="",
                                         input_={"method": "sum"})
    run = node.result_for(task["id"])
    node.request("PATCH", f"/result/{run['id']}", json={"status": "active"})
    # A sub-task the running algorithm posted, as a container does through its node's proxy.
    container = node.request("POST", "/token/container", json={"task_id": task["id"], "image": IMAGE})
    posted = requests.post(f"{server.api}/task", headers={"Authorization": f"Bearer {container['container_token']}"},
                           timeout=30, json={"name": "sub", "image": IMAGE, "collaboration_id": collab["id"],
                                             "description": "", "organizations": [
                                                 {"id": mine, "input": base64.b64encode(b"json.{}").decode()}]})
    assert posted.status_code == 201, posted.text
    child = posted.json()

    with pytest.raises(PermissionDenied, match="You lack the permission to kill task"):
        clients[theirs].task.kill(task["id"])
    answer = clients[mine].task.kill(task["id"])
    assert "its sub-tasks at every depth are killed" in answer["msg"]
    for t in (task["id"], child["id"]):
        runs = clients[mine].result.from_task(t)
        assert [r["status"] for r in runs] == ["killed by user"] and runs[0]["finished_at"] is not None
        assert clients[mine].task.get(t)["complete"] is True
    with pytest.raises(ValidationError, match="have already finished; there is nothing to kill"):
        clients[mine].task.kill(task["id"])


def test_cancel_on_failure_is_posted_and_shown(root, server, unique):
    collab = root.collaboration.create(unique("cancel"), [root.whoami["organization_id"]])
    root.node.create(collab["id"], organization_id=root.whoami["organization_id"])
    with pytest.warns(UserWarning, match="Offline node"):
        strict = root.task.create(collab["id"], [root.whoami["organization_id"]], name="strict", image=IMAGE,
                                  input_={"method": "sum"}, cancel_on_failure=True)
    assert strict["cancel_on_failure"] is True and root.task.get(strict["id"])["cancel_on_failure"] is True
    with pytest.warns(UserWarning, match="Offline node"):
        plain = root.task.create(collab["id"], [root.whoami["organization_id"]], name="plain", image=IMAGE,
                                 input_={"method": "sum"})
    assert plain["cancel_on_failure"] is False
