"""The W3C ``traceparent`` the client sends (docs/observability.md#traces), against the real server: a task's post
and the reads that prepare it carry a new one, the later reads of that task the same one, and the server keeps it
on the task (its tracing is off here, so the task keeps the caller's own context)."""

from __future__ import annotations

import json
import re

from conftest import ROOT_PASSWORD, ROOT_USERNAME
from federa_client.encryption import DummyCryptor
from federa_client.trace_context import TaskTraces, new_traceparent
from nodesim import NodeSim

IMAGE = "harbor.example.org/federa/test-average:1"
TRACEPARENT = re.compile(r"^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-01$")


def recording(client):
    """The requests ``client`` sends from now on, as ``(method, path, traceparent or None)``."""
    sent = []

    def keep(response, *args, **kwargs):
        request = response.request
        path = request.path_url.split("?")[0]
        sent.append((request.method, path, request.headers.get("traceparent")))

    client._session.hooks["response"].append(keep)
    return sent


def test_a_new_traceparent_is_well_formed_and_new_each_time():
    made = {new_traceparent() for _ in range(50)}
    assert len(made) == 50
    assert all(TRACEPARENT.match(t) for t in made)


def test_only_the_newest_tasks_contexts_are_kept():
    traces = TaskTraces()
    for task_id in range(TaskTraces.LIMIT + 5):
        traces.remember(task_id, f"context-{task_id}")
    assert traces.of(0) is None and traces.of(4) is None
    assert traces.of(5) == "context-5"
    assert traces.of(TaskTraces.LIMIT + 4) == f"context-{TaskTraces.LIMIT + 4}"


def test_a_task_post_and_its_later_reads_share_one_traceparent(root, server, unique):
    org = root.organization.create(unique("traced-org"))
    collab = root.collaboration.create(unique("traced"), [root.whoami["organization_id"], org["id"]])
    node = NodeSim(server.api, root.node.create(collab["id"], organization_id=org["id"])["api_key"])
    client = server.client()
    client.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    sent = recording(client)

    task = client.task.create(collab["id"], [org["id"]], name="traced", image=IMAGE, input_={"method": "sum"})
    posting = list(sent)
    assert [(m, p) for m, p, _ in posting] == [("GET", f"/api/collaboration/{collab['id']}"), ("POST", "/api/task")]
    context = posting[-1][2]
    assert context is not None and TRACEPARENT.match(context)
    assert {t for _, _, t in posting} == {context}
    # The server keeps the caller's context on the task: the nodes' spans join the researcher's trace.
    assert task["traceparent"] == context

    sent.clear()
    assert client.task.get(task["id"])["traceparent"] == context
    node.run(task["id"], DummyCryptor(), lambda raw: b"json." + json.dumps(6).encode())
    assert client.wait_for_results(task["id"], interval=0.1, timeout=30)[0]["result"] == 6
    assert client.result.from_task(task["id"])[0]["result"] == 6
    reads = [(m, p, t) for m, p, t in sent if p.startswith(f"/api/task/{task['id']}")]
    assert ("GET", f"/api/task/{task['id']}", context) in reads
    assert ("GET", f"/api/task/{task['id']}/result", context) in reads
    assert all(t == context for _, _, t in reads)

    sent.clear()
    other = client.task.create(collab["id"], [org["id"]], name="traced 2", image=IMAGE, input_={"method": "sum"})
    assert other["traceparent"] != context and TRACEPARENT.match(other["traceparent"])
    # Requests outside any task's trace carry none.
    sent.clear()
    client.organization.list()
    assert [t for _, _, t in sent] == [None]


def test_a_task_another_client_posted_is_read_without_a_traceparent(server, posted):
    task_id, _ = posted
    other = server.client()
    other.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    sent = recording(other)
    assert other.task.get(task_id)["traceparent"]
    assert sent == [("GET", f"/api/task/{task_id}", None)]
