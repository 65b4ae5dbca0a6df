"""The client a master algorithm uses, through the node's proxy (HOST, PORT, API_PATH, TOKEN_FILE)."""
import base64
import json
import os
import time
import urllib.error
import urllib.request

from .payload import decode_payload, encode_payload


def _identity(token: str) -> dict:
    part = token.split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    ident = claims.get("sub") if isinstance(claims.get("sub"), dict) else claims.get("identity")
    if not isinstance(ident, dict):
        raise RuntimeError("the container token carries no identity (sub/identity)")
    return ident


class AlgorithmClient:
    def __init__(self, host, port, api_path, token):
        self.base = f"{host.rstrip('/')}:{port}{api_path or ''}"
        self.token = token
        ident = _identity(token)
        self.node_id = ident.get("node_id")
        self.organization_id = ident.get("organization_id")
        self.collaboration_id = ident.get("collaboration_id")
        self.task_id = ident.get("task_id")
        self.image = ident.get("image")
        self.database = ident.get("database") or "default"

    @classmethod
    def from_env(cls, env=None):
        env = os.environ if env is None else env
        with open(env["TOKEN_FILE"], encoding="ascii") as handle:
            token = handle.read().strip()
        return cls(env["HOST"], env["PORT"], env.get("API_PATH", ""), token)

    def request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=60) as res:
                text = res.read().decode("utf-8")
        except urllib.error.HTTPError as err:
            raise RuntimeError(f"{method} {path} answered {err.code}: {err.read().decode('utf-8', 'replace')}") from None
        return json.loads(text) if text else None

    def organization_ids(self):
        body = self.request("GET", f"/collaboration/{self.collaboration_id}/organization")
        items = body.get("data", []) if isinstance(body, dict) else body
        return [o["id"] for o in items]

    def create_new_task(self, input_, organization_ids, name="subtask", description=None, fmt=None):
        """Create a sub-task; input is a dict {'method', 'args', 'kwargs'} sent as base64 of a pickle (or ``fmt``)."""
        payload = base64.b64encode(encode_payload(input_, fmt)).decode("ascii")
        return self.request("POST", "/task", {
            "name": name,
            "description": description or f"sub-task created by the algorithm of node {self.node_id}",
            "image": self.image,
            "collaboration_id": self.collaboration_id,
            "database": self.database,
            "organizations": [{"id": org, "input": payload} for org in organization_ids],
        })

    def wait_for_results(self, task_id, interval=1.0, timeout=1800):
        deadline = time.time() + timeout
        wait = 0.2
        while not self.request("GET", f"/task/{task_id}").get("complete"):
            if time.time() > deadline:
                raise TimeoutError(f"sub-task {task_id} did not complete in time")
            time.sleep(wait)
            wait = min(wait * 2, interval)
        return self.get_results(task_id)

    def get_results(self, task_id):
        body = self.request("GET", f"/task/{task_id}/result")
        items = body.get("data", []) if isinstance(body, dict) else body
        out = []
        for item in items:
            if not item.get("result"):
                status = item.get("status")
                if status and status != "completed":
                    raise RuntimeError(f"a sub-task run failed ({status}): {item.get('log')}")
                out.append(None)
                continue
            out.append(decode_payload(base64.b64decode(item["result"])))
        return out
