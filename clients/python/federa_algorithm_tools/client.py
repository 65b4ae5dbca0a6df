"""The client a master algorithm uses, through the node's proxy (HOST, PORT, API_PATH, TOKEN_FILE).

Its methods carry the names of vantage6 3.x's ``ContainerClient`` (``create_new_task``, ``get_task``,
``get_results``, ``get_organizations_in_my_collaboration``, ``post_task``, ``get_algorithm_addresses``), so a
master function written for vantage6 runs unchanged; ``organization_ids`` and ``wait_for_results`` are Federa's
additions. Input is sent as ``json.`` + JSON and results are read as JSON only: nothing is unpickled
(docs/security.md).
"""
import base64
import http.client
import json
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request

from .payload import encode_payload, read_result

#: How much of a failed sub-task run's log an error quotes (the last characters).
LOG_TAIL_CHARS = 1500
#: Header of the proxy's long-poll answers (docs/container-environment.md#waiting-for-a-sub-task).
LONG_POLL_HEADER = "x-federa-wait"
#: Seconds of one long-poll; the proxy answers sooner when the task completes.
LONG_POLL_SECONDS = 30
#: How long a request is tried again while the node's proxy is away (a node restart takes seconds).
RETRY_FOR_SECONDS = 120


def _identity(token: str) -> dict:
    part = token.split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    ident = claims.get("sub") if isinstance(claims.get("sub"), dict) else claims.get("identity")
    if not isinstance(ident, dict):
        raise RuntimeError("the container token carries no identity (sub/identity)")
    return ident


def _items(body):
    return body.get("data", []) if isinstance(body, dict) else (body or [])


class SubTaskFailed(RuntimeError):
    """A sub-task run ended other than ``completed``; the message has its status and the tail of its log."""

    def __init__(self, task_id, run):
        log = (run.get("log") or "").rstrip()
        tail = log if len(log) <= LOG_TAIL_CHARS else "..." + log[-LOG_TAIL_CHARS:]
        org = run.get("organization")
        org = org.get("id") if isinstance(org, dict) else org
        status = run.get("status") or "finished without output"
        super().__init__(f"sub-task {task_id}: the run of organization {org} did not succeed ({status})"
                         + (f"; log tail:\n{tail}" if tail else ""))
        self.task_id = task_id
        self.status = run.get("status")
        self.log = run.get("log")


def _failed(run) -> bool:
    status = run.get("status")
    if status:
        return status != "completed"
    return bool(run.get("finished_at")) and not run.get("result")


class AlgorithmClient:
    def __init__(self, host, port, api_path, token):
        self.base = f"{host.rstrip('/')}:{port}{api_path or ''}"
        self.token = token
        ident = _identity(token)
        self.node_id = ident.get("node_id")
        #: vantage6's name of ``node_id``.
        self.host_node_id = self.node_id
        self.organization_id = ident.get("organization_id")
        self.collaboration_id = ident.get("collaboration_id")
        self.task_id = ident.get("task_id")
        self.image = ident.get("image")
        self.database = ident.get("database") or "default"
        #: The proxy holds long-polls of tasks (until an answer without the header says otherwise).
        self.long_poll = True
        #: Seconds a request is tried again while the node's proxy is away or answers 502/503/504 (its node
        #: restarting); 0: never again.
        self.retry_for = RETRY_FOR_SECONDS

    @classmethod
    def from_env(cls, env=None):
        env = os.environ if env is None else env
        with open(env["TOKEN_FILE"], encoding="ascii") as handle:
            token = handle.read().strip()
        return cls(env["HOST"], env["PORT"], env.get("API_PATH", ""), token)

    def request(self, method, path, body=None):
        return self._exchange(method, path, body)[0]

    def _exchange(self, method, path, body=None, timeout=60, retry_status=True):
        """One request: the parsed answer and the proxy's long-poll header (``None`` when absent). With
        ``retry_status`` false a 502/503/504 answer is raised at once (a long-poll treats the proxy's 503 itself)."""
        path = "/" + path.lstrip("/")
        data = None if body is None else json.dumps(body).encode("utf-8")
        safe = method.upper() in ("GET", "HEAD")
        deadline = time.monotonic() + self.retry_for
        pause = 0.25
        while True:
            req = urllib.request.Request(self.base + path, data=data, method=method.upper())
            req.add_header("Authorization", f"Bearer {self.token}")
            if data is not None:
                req.add_header("Content-Type", "application/json")
            try:
                with urllib.request.urlopen(req, timeout=timeout) as res:
                    text = res.read().decode("utf-8")
                    outcome = res.headers.get(LONG_POLL_HEADER)
                break
            except urllib.error.HTTPError as err:
                again = retry_status and (err.code == 503 or (safe and err.code in (502, 504)))
                if not again or time.monotonic() + pause > deadline:
                    error = RuntimeError(
                        f"{method} {path} answered {err.code}: {err.read().decode('utf-8', 'replace')}")
                    error.status = err.code
                    raise error from None
            except (urllib.error.URLError, ConnectionError, http.client.HTTPException) as err:
                reason = getattr(err, "reason", err)
                # A request that changes something is sent again only when it cannot have arrived.
                again = isinstance(reason, ConnectionRefusedError) or (
                    safe and not isinstance(reason, (socket.timeout, TimeoutError)))
                if not again or time.monotonic() + pause > deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 5.0)
        return (json.loads(text) if text else None), outcome

    # ---------------------------------------------------------------- vantage6 ContainerClient names

    def get_organizations_in_my_collaboration(self):
        """The organizations (dictionaries) of this container's collaboration."""
        return _items(self.request("GET", f"/collaboration/{self.collaboration_id}/organization"))

    def get_task(self, task_id):
        """One task (``GET /task/{id}``), e.g. to poll ``complete``."""
        return self.request("GET", f"/task/{task_id}")

    def post_task(self, name, image, collaboration_id, input_="", description="", organization_ids=None,
                  database="default"):
        """Create a task (the proxy encrypts the input for each organization)."""
        payload = base64.b64encode(encode_payload(input_)).decode("ascii")
        return self.request("POST", "/task", {
            "name": name,
            "description": description,
            "image": image,
            "collaboration_id": collaboration_id,
            "database": database,
            "organizations": [{"id": org, "input": payload} for org in (organization_ids or [])],
        })

    def create_new_task(self, input_, organization_ids=None, name="subtask", description=None):
        """Create a sub-task with this container's image and database; ``input_`` is a dict
        ``{'method', 'args', 'kwargs'}`` sent as ``json.`` + JSON."""
        return self.post_task(name, self.image, self.collaboration_id, input_,
                              description or f"task from container on node_id={self.node_id}",
                              organization_ids or [], self.database)

    def get_results(self, task_id):
        """The outputs of the task's finished runs, read as JSON (a run without output is left out, as vantage6
        does). A run that ended other than ``completed`` raises :class:`SubTaskFailed` with its log tail; an
        output that is not JSON is returned as bytes with a warning, never unpickled."""
        out = []
        for item in _items(self.request("GET", f"/task/{task_id}/result")):
            if _failed(item):
                raise SubTaskFailed(task_id, item)
            if item.get("result"):
                out.append(read_result(base64.b64decode(item["result"]), f"the result of run {item.get('id')}"))
        return out

    def get_algorithm_addresses(self, task_id):
        """``{'ip', 'port', 'label'}`` of the task's other algorithm containers (VPN)."""
        addresses = []
        for item in _items(self.request("GET", f"/task/{task_id}/result")):
            node = item.get("node") if isinstance(item.get("node"), dict) else {}
            for port in item.get("ports") or []:
                addresses.append({"ip": node.get("ip"), "port": port.get("port"), "label": port.get("label")})
        return addresses

    def get_algorithm_address_by_label(self, task_id, label):
        """``"ip:port"`` of the container port labelled ``label``, or ``None``."""
        for address in self.get_algorithm_addresses(task_id):
            if address["label"] == label:
                return f"{address['ip']}:{address['port']}"
        return None

    # ---------------------------------------------------------------- Federa's additions

    def organization_ids(self):
        """The ids of the organizations of this container's collaboration."""
        return [o["id"] for o in self.get_organizations_in_my_collaboration()]

    def wait_for_results(self, task_id, interval=1.0, timeout=1800):
        """Wait until the task is complete, then :meth:`get_results`. A Federa node's proxy holds
        ``GET /task/{id}?wait=<s>`` until the task completes, so the container does not poll; a proxy without it
        (vantage6 3.x), or one holding too many waits, is polled: after 0.2 s, then doubling up to ``interval``."""
        deadline = time.time() + timeout
        wait = 0.2
        while True:
            remaining = deadline - time.time()
            answer = "unavailable"
            if self.long_poll:
                seconds = max(0, min(LONG_POLL_SECONDS, int(remaining)))
                answer = self._long_poll(task_id, seconds)
                if answer == "pending" and seconds > 0 and time.time() < deadline:
                    continue
            if answer == "complete" or (answer == "unavailable" and self.get_task(task_id).get("complete")):
                break
            if time.time() > deadline:
                raise TimeoutError(f"sub-task {task_id} did not complete in time")
            time.sleep(max(0.0, min(wait, deadline - time.time())))
            wait = min(wait * 2, interval)
        return self.get_results(task_id)

    def _long_poll(self, task_id, seconds):
        """``complete``, ``pending`` (the wait ended first) or ``unavailable`` (this proxy does not hold waits, and is
        polled from now on; or holds too many now, 503, and is polled this once)."""
        try:
            task, outcome = self._exchange("GET", f"/task/{task_id}?wait={seconds}", timeout=60 + seconds,
                                           retry_status=False)
        except RuntimeError as error:
            if getattr(error, "status", None) == 503:
                return "unavailable"
            raise
        if isinstance(task, dict) and task.get("complete"):
            return "complete"
        if outcome is None:
            self.long_poll = False
            return "unavailable"
        return "pending"

    # ---- VPN addresses of related runs (docs/vpn.md) --------------------------------------------------------
    def get_addresses(self, label=None, include_children=False, include_parent=False,
                      only_children=False, only_parent=False):
        """VPN addresses (``ip``, ``port``, ``label``, ``organization_id``, ``task_id``, ``parent_id``) of the
        runs of this task and, as asked, of its sub-tasks or its parent; ``label`` keeps only that port label."""
        query = {
            "include_children": include_children, "include_parent": include_parent,
            "only_children": only_children, "only_parent": only_parent,
        }
        params = "&".join(f"{k}={'1' if v else '0'}" for k, v in query.items())
        if label is not None:
            params += "&label=" + urllib.parse.quote(str(label), safe="")
        body = self.request("GET", f"/vpn/algorithm/addresses?{params}")
        return list((body or {}).get("addresses", []))

    def get_child_addresses(self, label=None):
        """VPN addresses of the runs of this task's sub-tasks."""
        return self.get_addresses(label=label, only_children=True)

    def get_parent_address(self, label=None):
        """The VPN address of the run of this task's parent (None when it has none)."""
        found = self.get_addresses(label=label, only_parent=True)
        return found[0] if found else None
