"""Large outputs (docs/large-results.md): held in the server's result store, read with ``client.result.iter_output``
and ``save_output`` as a stream. A real server; the NodeSim plays the node (upload, then report)."""

from __future__ import annotations

import hashlib
import os

import pytest
import requests

from federa_client.encryption import DummyCryptor


def _store(server, node, result_id: int, text: bytes) -> None:
    digest = hashlib.sha256(text).hexdigest()
    response = requests.put(f"{server.api}/result/{result_id}/output", data=text, timeout=60,
                            headers={"Authorization": f"Bearer {node.token}",
                                     "Content-Type": "application/octet-stream", "x-federa-sha256": digest})
    assert response.status_code == 201, response.text
    node.request("PATCH", f"/result/{result_id}",
                 json={"status": "completed", "result_stored": {"sha256": digest, "size": len(text)}})


def test_a_stored_output_reads_as_a_stream_and_saves_to_a_file(root, server, posted, tmp_path):
    task_id, node = posted
    result = node.result_for(task_id)
    plain = os.urandom(3 * 1024 * 1024 + 1)
    _store(server, node, result["id"], DummyCryptor().encrypt_bytes_to_str(plain).encode())

    shown = root.result.get(result["id"])
    assert shown["result"] is None
    assert shown["result_stored"]["size"] > len(plain)
    assert b"".join(root.result.iter_output(result["id"])) == plain
    target = tmp_path / "output.bin"
    assert root.result.save_output(result["id"], target) == len(plain)
    assert target.read_bytes() == plain
    assert [p.name for p in tmp_path.iterdir()] == ["output.bin"]


def test_an_inline_output_reads_the_same_way(root, server, posted):
    task_id, node = posted
    result = node.result_for(task_id)
    node.finish(result["id"], DummyCryptor().encrypt_bytes_to_str(b"json.{\"a\": 1}"))
    assert b"".join(root.result.iter_output(result["id"])) == b"json.{\"a\": 1}"
    assert root.result.get(result["id"])["result_stored"] is None


def test_a_result_without_output_is_not_found(root, posted):
    from federa_client.exceptions import NotFound

    task_id, node = posted
    result = node.result_for(task_id)
    with pytest.raises(NotFound):
        list(root.result.iter_output(result["id"]))
