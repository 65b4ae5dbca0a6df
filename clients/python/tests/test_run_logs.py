"""``client.result.logs`` (docs/run-logs.md): a run's log as it is, and followed until the run has finished.

A real server process; ``NodeSim`` plays the node and grows the run's log with reports, as the server would show a
node's streamed batches."""

from __future__ import annotations

import threading
import time


def test_logs_follow_a_run_until_it_has_finished(root, posted):
    task_id, node = posted
    run = node.result_for(task_id)["id"]
    assert root.result.logs(run) == ""
    node.request("PATCH", f"/result/{run}", json={"status": "active"})

    pieces = []
    ended = []

    def follow():
        for piece in root.result.logs(run, follow=True, interval=0.05):
            pieces.append(piece)
        ended.append(time.monotonic())

    reader = threading.Thread(target=follow)
    reader.start()
    log = ""
    for line in ("one\n", "two\n", "three\n"):
        log += line
        node.request("PATCH", f"/result/{run}", json={"log": log})
        time.sleep(0.3)
    assert "".join(pieces) == "one\ntwo\nthree\n" and len(pieces) >= 3
    assert root.result.logs(run) == "one\ntwo\nthree\n"
    assert not ended
    finished = time.monotonic()
    node.request("PATCH", f"/result/{run}", json={"status": "completed", "result": "", "log": log + "four\n"})
    reader.join(timeout=10)
    assert not reader.is_alive() and ended and ended[0] >= finished
    assert "".join(pieces) == "one\ntwo\nthree\nfour\n" and pieces[-1] == "four\n"
    # Followed once finished: the whole log at once.
    assert list(root.result.logs(run, follow=True)) == ["one\ntwo\nthree\nfour\n"]
