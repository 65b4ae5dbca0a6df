"""The Python client is a drop-in for vantage6 3.x's: one researcher's script (v6compat/user_script.py), written
with vantage6's names only, runs unchanged against the real server, imported as ``vantage6.client`` and as
``federa_client``, with the same outcome."""

from __future__ import annotations

import base64
import inspect
import json
import sys
import threading
import time
import types
from pathlib import Path

import pytest

from conftest import ROOT_PASSWORD, ROOT_USERNAME
from federa_client import Client
from federa_client.encryption import DummyCryptor
from nodesim import NodeSim

HERE = Path(__file__).resolve().parent
SCRIPT = (HERE / "v6compat" / "user_script.py").read_text()
IMPORT_LINE = "from vantage6.client import Client  # IMPORT LINE"


def load_script(import_line: str) -> types.ModuleType:
    assert IMPORT_LINE in SCRIPT
    module = types.ModuleType("user_script")
    exec(compile(SCRIPT.replace(IMPORT_LINE, import_line), "user_script.py", "exec"), module.__dict__)  # noqa: S102
    return module


@pytest.fixture
def stand_in(monkeypatch):
    monkeypatch.syspath_prepend(str(HERE / "v6compat" / "stand_in"))
    yield
    for name in [n for n in sys.modules if n == "vantage6" or n.startswith("vantage6.")]:
        del sys.modules[name]


def play_node(server, inputs):
    """The node answers a second later, while the script waits (on socket events when python-socketio is
    installed); the input it got is kept in ``inputs``."""
    def answer(api_key, task_id, output):
        node = NodeSim(server.api, api_key)

        def later():
            time.sleep(1)
            inputs.append(node.run(task_id, DummyCryptor(), lambda raw: b"json." + json.dumps(output).encode()))

        threading.Thread(target=later, daemon=True).start()
    return answer


@pytest.mark.parametrize("import_line", [IMPORT_LINE, "from federa_client import Client  # IMPORT LINE"],
                         ids=["vantage6.client", "federa_client"])
def test_the_same_vantage6_script_runs_under_both_names(server, stand_in, unique, import_line, capsys):
    script = load_script(import_line)
    assert script.Client is Client
    inputs = []
    seen = script.main(f"http://{server.host}", server.port, ROOT_USERNAME, ROOT_PASSWORD, play_node(server, inputs),
                       unique("v6"))
    [raw] = inputs
    assert base64.b64encode(raw) and json.loads(raw[5:])["output_format"] == "json"  # the input arrived
    org_ids, link_keys = seen.pop("org_page")
    assert len(org_ids) == 1 and {"first", "self", "last"} <= set(link_keys)
    [collab] = seen.pop("global_collabs")
    assert set(collab) == {"id", "encrypted"} and collab["encrypted"] is False
    [task] = seen.pop("task_listed")
    assert set(task) == {"id", "name"} and task["name"] == "average"
    assert seen == {
        "node_has_key": True, "my_collabs": True, "nodes": [{"name": seen["nodes"][0]["name"]}],
        "own_org": True, "own_user": True, "user": ("Ada", "Lovelace", True), "user_update": "Augusta",
        "role_update": "still views users", "wait": [{"average": 41.5}], "from_task": [{"average": 41.5}],
        "get": True, "result_list": [{"average": 41.5}], "get_results": [{"average": 41.5}], "get_result": {"average": 41.5},
        "with_results": 1,
        "version": True,
    }
    assert seen["nodes"][0]["name"].startswith("v6-node-")
    assert "[federa] Task" in capsys.readouterr().out  # verbose=True prints status lines


# vantage6 3.x UserClient signatures (parameter names and defaults, self and the post-filter keywords left out),
# written down from vantage6 3.11's client. Federa's may add keyword parameters after them, never change these.
V6_SIGNATURES = {
    "": {"authenticate": "username, password, mfa_code=None", "setup_encryption": "private_key_file=*",
         "wait_for_results": "task_id, sleep=1", "request": None,
         "post_task": "name, image, collaboration_id, input_='', description='', organization_ids=None, "
                      "data_format=*, database='default'",
         "get_results": "id_=None, state=None, include_task=False, task_id=None, node_id=None, params=*"},
    "util": {"get_server_version": "", "get_server_health": "",
             "change_my_password": "current_password, new_password",
             "reset_my_password": "email=None, username=None", "set_my_password": "token, password",
             "reset_two_factor_auth": "password, email=None, username=None", "set_two_factor_auth": "token",
             "generate_private_key": "file_=None"},
    "collaboration": {"list": "scope='organization', name=None, encrypted=None, organization=None, page=1, "
                              "per_page=20, include_metadata=True",
                      "get": "id_", "create": "name, organizations=*, encrypted=False"},
    "node": {"get": "id_",
             "list": "name=None, organization=None, collaboration=None, is_online=None, ip=None, "
                     "last_seen_from=None, last_seen_till=None, page=1, per_page=20, include_metadata=True",
             "create": "collaboration, organization=None, name=None",
             "update": "id_, name=None, organization=None, collaboration=None", "delete": "id_",
             "kill_tasks": "id_"},
    "organization": {"list": "name=None, country=None, collaboration=None, page=None, per_page=None, "
                             "include_metadata=True",
                     "get": "id_=None",
                     "update": "id_=None, name=None, address1=None, address2=None, zipcode=None, country=None, "
                               "domain=None, public_key=None",
                     "create": "name, address1=*, address2=*, zipcode=*, country=*, domain=*, public_key=None"},
    "user": {"list": "username=None, organization=None, firstname=None, lastname=None, email=None, role=None, "
                     "rule=None, last_seen_from=None, last_seen_till=None, page=1, per_page=20, "
                     "include_metadata=True",
             "get": "id_=None",
             "update": "id_=None, firstname=None, lastname=None, organization=None, rules=None, roles=None, "
                       "email=None",
             "create": "username, firstname=*, lastname=*, password=*, email=*, organization=None, roles=*, "
                       "rules=*"},
    "role": {"list": "name=None, description=None, organization=None, rule=None, user=None, include_root=None, "
                     "page=1, per_page=20, include_metadata=True",
             "get": "id_", "create": "name, description=*, rules=*, organization=None",
             "update": "role, name=None, description=None, rules=None", "delete": "role"},
    "task": {"get": "id_, include_results=False",
             "list": "initiator=None, initiating_user=None, collaboration=None, image=None, parent=None, run=None, "
                     "name=None, include_results=False, description=None, database=None, result=None, "
                     "status=None, page=1, per_page=20, include_metadata=True",
             "create": "collaboration, organizations, name, image, description=*, input=*, data_format=*, "
                       "database='default'",
             "delete": "id_", "kill": "id_"},
    "result": {"get": "id_, include_task=False",
               "list": "task=None, organization=None, state=None, node=None, include_task=False, started=None, "
                       "assigned=None, finished=None, port=None, page=None, per_page=None, "
                       "include_metadata=True",
               "from_task": "task_id, include_task=False"},
    "rule": {"get": "id_", "list": "name=None, operation=None, scope=None, role=None, page=1, per_page=20, "
                                   "include_metadata=True"},
}
POST_FILTERS = {"filter_", "filters", "field", "fields"}


def described(func, count: int) -> list:
    params = [p for p in inspect.signature(func).parameters.values()
              if p.name != "self" and p.name not in POST_FILTERS
              and p.kind in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY)]
    out = []
    for p in params[:count]:
        out.append(p.name if p.default is p.empty else f"{p.name}={p.default!r}")
    return out


@pytest.mark.parametrize("group", sorted(V6_SIGNATURES))
def test_every_vantage6_method_exists_with_its_parameters_in_order(group):
    client = Client("localhost", 5000)
    target = getattr(client, group) if group else client
    for method, expected in V6_SIGNATURES[group].items():
        func = getattr(target, method)
        if expected is None:
            continue
        wanted = [e.strip() for e in expected.split(",") if e.strip()]
        got = described(func, len(wanted))
        assert len(got) == len(wanted), f"{group}.{method}: {got}"
        for g, w in zip(got, wanted):
            if w.endswith("=*"):  # a parameter vantage6 requires that Federa gives a default: same name
                assert g.split("=")[0] == w[:-2], f"{group}.{method}: {g} != {w}"
            else:
                assert g == w, f"{group}.{method}: {g} != {w}"


def test_vantage6_names_of_the_client_itself():
    client = Client("localhost", 5000, verbose=True, log_level="info")
    assert client.name == "http://localhost:5000" and client.base_path == "http://localhost:5000/api"
    assert client.generate_path_to("task") == "http://localhost:5000/api/task"
    assert client.token is None and client.headers == {}
    from federa_client import UserClient
    assert UserClient is Client
