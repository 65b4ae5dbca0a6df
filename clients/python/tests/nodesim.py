"""A minimal stand-in for a Federa node, talking to the server with ``requests`` directly (not the client).

It logs in with the node's API key, uploads its organization's public key, reads its open results and their
(encrypted) input, and finishes a result with an output encrypted for the task's initiator, like a real node.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Dict, List, Optional

import requests

from federa_client.encryption import CryptorBase


class NodeSim:
    def __init__(self, api: str, api_key: str):
        self.api = api
        response = requests.post(f"{api}/token/node", json={"api_key": api_key}, timeout=30)
        assert response.status_code == 200, response.text
        body = response.json()
        self.token = body["access_token"]
        self.id = int(body["node_url"].rstrip("/").rsplit("/", 1)[1])
        me = self.request("GET", f"/node/{self.id}")
        self.organization_id = me["organization"]["id"]
        self.collaboration_id = me["collaboration"]["id"]

    def request(self, method: str, path: str, expect: int = 200, **kwargs) -> Any:
        response = requests.request(method, f"{self.api}{path}", headers={"Authorization": f"Bearer {self.token}"},
                                    timeout=30, **kwargs)
        assert response.status_code == expect, f"{method} {path}: {response.status_code} {response.text}"
        return response.json()

    def stream_log(self, result_id: int, pieces: List[str]) -> None:
        """Send ``pieces`` of an active run's log as a node streams them (``run_log`` on a socket, each answered
        before the next is sent; docs/run-logs.md). Needs python-socketio."""
        import socketio  # a test-only use: the client itself works without it

        sio = socketio.Client(reconnection=False, handle_sigint=False)
        origin = self.api.rsplit("/api", 1)[0]
        sio.connect(origin, headers={"Authorization": f"Bearer {self.token}"}, namespaces=["/tasks"])
        try:
            offset = 0
            for text in pieces:
                answer = sio.call("run_log", {"result_id": result_id, "offset": offset, "text": text},
                                  namespace="/tasks", timeout=10)
                assert answer.get("ok"), answer
                offset = answer["offset"]
        finally:
            sio.disconnect()

    def upload_public_key(self, public_key_b64: str) -> None:
        self.request("PATCH", f"/organization/{self.organization_id}", json={"public_key": public_key_b64})

    def open_results(self, task_id: Optional[int] = None) -> List[Dict[str, Any]]:
        params = {"state": "open", "include": "task", "node_id": self.id}
        if task_id is not None:
            params["task_id"] = task_id
        return self.request("GET", "/result", params=params)

    def result_for(self, task_id: int) -> Dict[str, Any]:
        mine = [r for r in self.open_results(task_id) if _ref_id(r["organization"]) == self.organization_id]
        assert len(mine) == 1, mine
        return mine[0]

    def initiator_public_key(self, result: Dict[str, Any]) -> str:
        task = result["task"] if isinstance(result["task"], dict) and "initiator" in result["task"] else \
            self.request("GET", f"/task/{_ref_id(result['task'])}")
        return self.request("GET", f"/organization/{task['initiator']}")["public_key"]

    def finish(self, result_id: int, encrypted_output: str, log: str = "done",
               status: str = "completed") -> Dict[str, Any]:
        now = _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None)
        started = (now - _dt.timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%S.%f")
        self.request("PATCH", f"/result/{result_id}", json={"started_at": started, "status": "active"})
        return self.request("PATCH", f"/result/{result_id}", json={
            "started_at": started,
            "finished_at": now.strftime("%Y-%m-%dT%H:%M:%S.%f"),
            "result": encrypted_output,
            "log": log,
            "status": status,
        })

    def run(self, task_id: int, cryptor: CryptorBase, compute, log: str = "done", status: str = "completed") -> Any:
        """Decrypt the input of this node's result of ``task_id``, call ``compute(input_bytes)`` for the output
        bytes, encrypt them for the initiator and finish the result. Returns the input bytes."""
        result = self.result_for(task_id)
        raw_input = cryptor.decrypt_str_to_bytes(result["input"])
        output = compute(raw_input)
        self.finish(result["id"], cryptor.encrypt_bytes_to_str(output, self.initiator_public_key(result)), log,
                    status)
        return raw_input


def _ref_id(value: Any) -> int:
    return int(value["id"]) if isinstance(value, dict) else int(value)
