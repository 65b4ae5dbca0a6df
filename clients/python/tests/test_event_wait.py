"""``wait_for_results`` on the server's socket events (docs/client-python.md#waiting-for-results), against a real
server: the task is read again only when an event about one of its runs arrives; polling stays the fallback without
python-socketio, when the socket cannot connect, and the socket refreshes a token the server did not take.

``NodeSim`` plays the node over HTTP: each of its reports makes the server emit ``status_update``. The tests need
python-socketio (``python3-socketio``, installed by scripts/setup-machine.sh) except where they hide it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import federa_client.task_posting as task_posting
from conftest import ROOT_PASSWORD, ROOT_USERNAME, free_port
from federa_client import task_events
from federa_client.encryption import DummyCryptor

CLIENT_DIR = Path(__file__).resolve().parents[1]


def output(value) -> str:
    return DummyCryptor().encrypt_bytes_to_str(b"json." + json.dumps(value).encode(), "")


def counted(client):
    """Record each API request of ``client`` as ``(seconds since now, method, endpoint)``."""
    reads = []
    start = time.monotonic()
    send = client.api_request

    def recording(method, endpoint, **kwargs):
        reads.append((time.monotonic() - start, method.upper(), endpoint))
        return send(method, endpoint, **kwargs)

    client.api_request = recording
    return reads


def logged_in(server):
    client = server.client()
    client.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    return client


def listening(reads, path, seconds=1.5):
    """Wait until the waiter has read ``path`` twice (before its socket and once it listens; slow under load), then
    ``seconds`` more, in which a poller would have read it again every 0.1 s; return the reads then."""
    deadline = time.monotonic() + 30
    while [r[2] for r in reads].count(path) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(seconds)
    return [r[2] for r in reads]


def wait_in_thread(client, task_id, **kwargs):
    box = {}

    def run():
        try:
            box["results"] = client.wait_for_results(task_id, **kwargs)
        except Exception as exc:  # shown by the assertion on box
            box["error"] = exc
        box["at"] = time.monotonic()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, box


def test_the_task_is_read_again_only_when_its_events_arrive(server, posted, monkeypatch):
    # A missed event would leave the wait to the safety read a minute later: the test would time out.
    monkeypatch.setattr(task_posting, "SAFETY_READ_SECONDS", 60.0)
    task_id, node = posted
    client = logged_in(server)
    reads = counted(client)
    thread, box = wait_in_thread(client, task_id, sleep=0.1, timeout=120)
    task_path = f"/task/{task_id}"
    # Polling every 0.1 s would have read the task ~15 times more by now: once before the socket, once after.
    assert listening(reads, task_path) == [task_path, task_path]
    finished = time.monotonic()
    run = node.result_for(task_id)
    node.finish(run["id"], output({"sum": 7}))  # two reports: active, then completed
    thread.join(timeout=15)
    assert not thread.is_alive() and "error" not in box, box
    assert box["results"][0]["result"] == {"sum": 7} and box["results"][0]["status"] == "completed"
    assert box["at"] - finished < 5
    after = [r[2] for r in reads[2:]]
    # One read per event of the task's run (active, completed), then the results, read once complete.
    assert 1 <= after.count(task_path) <= 2 and after[-1] == f"/task/{task_id}/result", reads
    assert len(after) <= 3


def test_other_tasks_events_do_not_wake_the_wait(server, posted, root, unique, monkeypatch):
    monkeypatch.setattr(task_posting, "SAFETY_READ_SECONDS", 60.0)
    task_id, node = posted
    with pytest.warns(UserWarning, match="Offline node"):
        other = root.task.create(node.collaboration_id, [node.organization_id], name="other",
                                 image="federa/average-python:local", input_={"method": "sum"})
    client = logged_in(server)
    reads = counted(client)
    thread, box = wait_in_thread(client, task_id, sleep=0.1, timeout=120)
    listening(reads, f"/task/{task_id}", 0)
    node.finish(node.result_for(other["id"])["id"], output({"sum": 1}))
    time.sleep(1.5)
    assert [r[2] for r in reads] == [f"/task/{task_id}"] * 2
    node.finish(node.result_for(task_id)["id"], output({"sum": 2}))
    thread.join(timeout=15)
    assert not thread.is_alive() and box["results"][0]["result"] == {"sum": 2}, box


def test_without_socketio_the_wait_polls(server, posted):
    """python-socketio made unimportable in a fresh interpreter: the client still imports and polls."""
    task_id, node = posted
    script = (
        "import json, sys, time\n"
        "sys.modules['socketio'] = None\n"
        "sys.modules['engineio'] = None\n"
        f"sys.path.insert(0, {str(CLIENT_DIR)!r})\n"
        "from federa_client import Client\n"
        "from federa_client.task_events import socket_available\n"
        f"c = Client('http://{server.host}', {server.port})\n"
        f"c.authenticate({ROOT_USERNAME!r}, {ROOT_PASSWORD!r})\n"
        "reads = []\n"
        "send = c.api_request\n"
        "c.api_request = lambda m, e, **k: (reads.append(e), send(m, e, **k))[1]\n"
        "print('ready', flush=True)\n"
        f"res = c.wait_for_results({task_id}, sleep=0.1, timeout=60)\n"
        "print(json.dumps({'socket': socket_available(), 'reads': reads, 'result': res[0]['result']}))\n"
    )
    waiter = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert waiter.stdout.readline().strip() == "ready", waiter.stderr.read()
    time.sleep(2)
    node.finish(node.result_for(task_id)["id"], output({"sum": 3}))
    out, err = waiter.communicate(timeout=60)
    assert waiter.returncode == 0, err
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen["socket"] is False and seen["result"] == {"sum": 3}
    # Read every 0.1 s while the run was open.
    assert seen["reads"].count(f"/task/{task_id}") >= 8, seen["reads"]


def test_when_the_socket_cannot_connect_the_wait_polls(server, posted, capsys):
    task_id, node = posted
    client = logged_in(server)
    client.verbose = True
    client.socket_url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    reads = counted(client)
    thread, box = wait_in_thread(client, task_id, sleep=0.1, timeout=60)
    time.sleep(2)
    node.finish(node.result_for(task_id)["id"], output({"sum": 4}))
    thread.join(timeout=15)
    assert not thread.is_alive() and box["results"][0]["result"] == {"sum": 4}, box
    assert [r[2] for r in reads].count(f"/task/{task_id}") >= 8
    assert "waiting by polling" in capsys.readouterr().out


def test_a_token_the_socket_refused_is_refreshed_once(server, posted, monkeypatch):
    monkeypatch.setattr(task_posting, "SAFETY_READ_SECONDS", 60.0)
    task_id, node = posted
    client = logged_in(server)
    refreshes = []
    refresh = client._refresh
    monkeypatch.setattr(client, "_refresh", lambda: (refreshes.append(1), refresh())[1])
    given = []
    headers = task_events.EventWatch._headers

    def first_one_wrong(watch):
        given.append(1)
        return {"Authorization": "Bearer not-a-token"} if len(given) == 1 else headers(watch)

    monkeypatch.setattr(task_events.EventWatch, "_headers", first_one_wrong)
    reads = counted(client)
    thread, box = wait_in_thread(client, task_id, sleep=0.1, timeout=120)
    # Listening after the refresh: no polling.
    assert listening(reads, f"/task/{task_id}") == [f"/task/{task_id}"] * 2
    assert refreshes == [1] and len(given) >= 2
    node.finish(node.result_for(task_id)["id"], output({"sum": 5}))
    thread.join(timeout=15)
    assert not thread.is_alive() and box["results"][0]["result"] == {"sum": 5}, box


def test_every_connection_after_a_refused_token_listens(server, posted, monkeypatch):
    """The connection after a refused token is a new socket: the ending threads of the refused one once reset it,
    so that it never joined the namespace and the wait polled (1 in about 20 attempts on a loaded machine)."""
    task_id, _ = posted
    client = logged_in(server)
    task = client.task.get(task_id)
    headers = task_events.EventWatch._headers

    def wrong_then_right(watch):
        first = not getattr(watch, "refused_once", False)
        watch.refused_once = True
        return {"Authorization": "Bearer not-a-token"} if first else headers(watch)

    monkeypatch.setattr(task_events.EventWatch, "_headers", wrong_then_right)
    outcomes = []
    for _ in range(40):
        watch = task_events.watch_task(client, task)
        try:
            outcomes.append(watch.open())
        finally:
            watch.close()
    assert outcomes == [True] * 40


def test_a_user_in_no_room_of_the_collaboration_waits_by_polling(server, posted, root, unique, capsys):
    """Without an *event view* rule the server puts the user's socket in no room: the client polls."""
    task_id, node = posted
    views = [r["id"] for r in root.rule.list_all() if r["name"] in ("task", "result") and r["operation"] == "VIEW"
             and r["scope"] == "ORGANIZATION"]
    assert len(views) == 2
    name, password = unique("no-events"), "No-Events-Pw-7!x"
    root.user.create(name, password=password, email=f"{name}@example.org", rules=views)
    client = server.client(verbose=True)
    client.authenticate(name, password)
    reads = counted(client)
    thread, box = wait_in_thread(client, task_id, sleep=0.1, timeout=60)
    time.sleep(4.5)  # 2 s for the server to name a room, then polling
    node.finish(node.result_for(task_id)["id"], output({"sum": 6}))
    thread.join(timeout=15)
    assert not thread.is_alive() and box["results"][0]["result"] == {"sum": 6}, box
    assert [r[2] for r in reads].count(f"/task/{task_id}") >= 8
    assert "in no room that gets these events" in capsys.readouterr().out


def test_a_followed_log_is_read_when_the_node_streams_a_batch(server, posted, monkeypatch):
    """``result.logs(id, follow=True)`` reads the run on ``run_log_update`` (a node's batch) and ends on the
    ``status_update`` of its end, not by polling."""
    import federa_client.run_logs as run_logs

    monkeypatch.setattr(run_logs, "SAFETY_READ_SECONDS", 60.0)
    task_id, node = posted
    run = node.result_for(task_id)["id"]
    node.request("PATCH", f"/result/{run}", json={"status": "active"})
    client = logged_in(server)
    reads = counted(client)
    pieces, ended = [], []

    def follow():
        for piece in client.result.logs(run, follow=True, interval=0.1):
            pieces.append((piece, len(reads)))
        ended.append(len(reads))

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    # Before the socket and after it: polling would have read ~15 times more.
    assert listening(reads, f"/result/{run}") == [f"/result/{run}"] * 2 and pieces == []
    node.stream_log(run, ["one\n", "two\n"])
    deadline = time.monotonic() + 10
    while "".join(p for p, _ in pieces) != "one\ntwo\n" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "".join(p for p, _ in pieces) == "one\ntwo\n", pieces
    assert len(reads) <= 4  # one read per batch
    node.request("PATCH", f"/result/{run}", json={"status": "completed", "result": output({"sum": 8}),
                                                  "log": "one\ntwo\nthree\n"})
    reader.join(timeout=15)
    assert not reader.is_alive() and ended, reads
    assert "".join(p for p, _ in pieces) == "one\ntwo\nthree\n"
    assert all(endpoint == f"/result/{run}" for _, _, endpoint in reads)
    assert ended[0] <= 7, reads  # reads on the finish's two reports at most


def test_a_researcher_waits_on_the_events_of_their_organization(server, posted, root, unique, monkeypatch):
    """A Researcher has only *event view organization*: the server sends the run's events to their organization's
    room of the collaboration too, so they wait on events like an administrator."""
    monkeypatch.setattr(task_posting, "SAFETY_READ_SECONDS", 60.0)
    task_id, node = posted
    [researcher] = [r["id"] for r in root.role.list_all(name="Researcher") if r["name"] == "Researcher"]
    name, password = unique("researcher"), "Researcher-Pw-7!x"
    root.user.create(name, password=password, email=f"{name}@example.org", roles=[researcher])
    client = server.client()
    client.authenticate(name, password)
    reads = counted(client)
    thread, box = wait_in_thread(client, task_id, sleep=0.1, timeout=120)
    assert listening(reads, f"/task/{task_id}") == [f"/task/{task_id}"] * 2
    node.finish(node.result_for(task_id)["id"], output({"sum": 9}))
    thread.join(timeout=15)
    assert not thread.is_alive() and box["results"][0]["result"] == {"sum": 9}, box


def test_a_dropped_socket_is_polled_over_and_connected_again(server, posted, monkeypatch):
    monkeypatch.setattr(task_posting, "SAFETY_READ_SECONDS", 60.0)
    task_id, node = posted
    watches = []
    open_ = task_events.EventWatch.open
    monkeypatch.setattr(task_events.EventWatch, "open", lambda self, *a: (watches.append(self), open_(self, *a))[1])
    client = logged_in(server)
    reads = counted(client)
    thread, box = wait_in_thread(client, task_id, sleep=0.1, timeout=120)
    path = f"/task/{task_id}"
    assert listening(reads, path, 0.5) == [path, path]
    [watch] = watches
    watch._sio.eio.disconnect(abort=True)  # the connection drops, as when the server restarts
    deadline = time.monotonic() + 20
    while not (watch.listening and watch._sio.connected) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert watch.listening, "connected again"
    count = len(listening(reads, path, 0))
    assert count >= 3  # read at the drop (events may have been missed) and after reconnecting
    time.sleep(1.5)
    assert len(reads) == count  # listening again: no polling
    node.finish(node.result_for(task_id)["id"], output({"sum": 10}))
    thread.join(timeout=15)
    assert not thread.is_alive() and box["results"][0]["result"] == {"sum": 10}, box
