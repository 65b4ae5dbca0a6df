"""The conventions of vantage6 4.x's algorithm tools, written for Federa's tests (not vantage6's code): how a 4.x
algorithm is started, reads its data and environment, and talks to its node's proxy. What it relies on is listed in
docs/vantage6-4.md; every call the 4.x client makes from a container is made here the same way.

* The environment: each value base32-encoded by a 4.x node, plain from a Federa node (a value that is not valid
  base32 is taken as it is).
* The input file: JSON ``{"method", "args", "kwargs"}``; the output file: the function's result as JSON.
* The token's ``sub``: the container's identity (``task_id``, ``collaboration_id``, ``image``, ``databases``).
* Listings: ``{data, links}`` read page by page; ``GET task/{id}/status`` until the task is done; results from
  ``GET result?task_id=`` (decrypted by the proxy, base64 of JSON).
"""

import base64
import binascii
import csv
import importlib
import json
import os
import sys
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request

OPEN_STATUSES = {"pending", "initializing", "active"}


def env(name, default=None):
    value = os.environ.get(name)
    if value is None:
        if default is None:
            raise KeyError(f"the environment variable {name} is not set")
        return default
    try:
        return base64.b32decode(value.encode("ascii")).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeError):
        return value


def _read_csv(uri):
    with open(uri, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def data(number=1):
    """The function's first ``number`` arguments are the rows of the task's databases, in the task's order."""

    def decorate(fn):
        def with_data(*args, **kwargs):
            labels = [l for l in env("USER_REQUESTED_DATABASE_LABELS").split(",") if l]
            if len(labels) < number:
                raise ValueError(f"the task names {len(labels)} database(s); this function reads {number}")
            frames = []
            for label in labels[:number]:
                kind = env(f"{label.upper()}_DATABASE_TYPE", "csv")
                if kind != "csv":
                    raise ValueError(f"database {label!r} is of type {kind!r}; this algorithm reads csv")
                frames.append(_read_csv(env(f"{label.upper()}_DATABASE_URI")))
            return fn(*frames, *args, **kwargs)

        return with_data

    return decorate


def algorithm_client(fn):
    """The function's first argument is an :class:`AlgorithmClient` of the container's own token."""

    def with_client(*args, **kwargs):
        with open(env("TOKEN_FILE"), encoding="utf-8") as f:
            token = f.read().strip()
        client = AlgorithmClient(token, env("HOST"), env("PORT"), env("API_PATH", ""))
        return fn(client, *args, **kwargs)

    return with_client


class AlgorithmClient:
    def __init__(self, token, host, port, path):
        self.token = token
        self.base = f"{host}:{port}{path}"
        part = token.split(".")[1]
        identity = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))["sub"]
        self.task_id = identity["task_id"]
        self.collaboration_id = identity["collaboration_id"]
        self.organization_id = identity.get("organization_id")
        self.image = identity["image"]
        self.databases = identity.get("databases", [])
        self.organization = _Organizations(self)
        self.task = _Tasks(self)
        self.result = _Results(self)

    def request(self, endpoint, params=None, method="get", json_=None, tolerate=()):
        url = f"{self.base}/{endpoint}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        body = None if json_ is None else json.dumps(json_).encode("utf-8")
        req = urllib.request.Request(url, data=body, method=method.upper())
        req.add_header("Authorization", f"Bearer {self.token}")
        if body is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=60) as res:
                text = res.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            if error.code in tolerate:
                return None
            raise RuntimeError(f"{method.upper()} {endpoint}: {error.code} {error.read().decode('utf-8', 'replace')}")
        return json.loads(text) if text else None

    def multi_page(self, endpoint, params):
        page = 1
        answer = self.request(endpoint, {**params, "page": page})
        items = list(answer["data"])
        while answer.get("links", {}).get("next"):
            page += 1
            answer = self.request(endpoint, {**params, "page": page})
            items += answer["data"]
        return items

    def wait_for_results(self, task_id, interval=0.5):
        while self.request(f"task/{task_id}/status")["status"] in OPEN_STATUSES:
            time.sleep(interval)
        return self.result.from_task(task_id)


class _Organizations:
    def __init__(self, parent):
        self.parent = parent

    def list(self):
        return self.parent.multi_page("organization", {"collaboration_id": self.parent.collaboration_id})


class _Tasks:
    def __init__(self, parent):
        self.parent = parent

    def create(self, input_, organizations, name="subtask", description=""):
        # A 4.x client asks whether the server streams inputs through its blob store; without one it sends them inline.
        self.parent.request("blobstream/status", tolerate=(404,))
        payload = base64.b64encode(json.dumps(input_).encode("utf-8")).decode("ascii")
        return self.parent.request(
            "task",
            method="post",
            json_={
                "name": name,
                "image": self.parent.image,
                "collaboration_id": self.parent.collaboration_id,
                "description": description,
                "organizations": [{"id": org, "input": payload} for org in organizations],
                "databases": self.parent.databases,
            },
        )


class _Results:
    def __init__(self, parent):
        self.parent = parent

    def from_task(self, task_id):
        runs = self.parent.multi_page("result", {"task_id": task_id})
        return [json.loads(base64.b64decode(r["result"]).decode("utf-8")) if r.get("result") else None for r in runs]


def wrap_algorithm():
    """Runs the function the input file names, and writes its result as JSON to the output file."""
    try:
        with open(env("INPUT_FILE"), "rb") as f:
            request = json.loads(f.read().decode("utf-8"))
        module = importlib.import_module(env("PKG_NAME"))
        method = request["method"]
        fn = getattr(module, method, None)
        if fn is None or method.startswith("_"):
            raise ValueError(f"this algorithm has no function {method!r}")
        print(f"running {method}", flush=True)
        result = fn(*request.get("args", []), **request.get("kwargs", {}))
        with open(env("OUTPUT_FILE"), "wb") as f:
            f.write(json.dumps(result).encode("utf-8"))
    except Exception:
        traceback.print_exc()
        sys.exit(1)
