"""The Python client and the algorithm store inside the server: a researcher searches the catalogue, reads an
algorithm with its functions and creates a task from an algorithm, a function and its arguments; a wrong argument
comes back as the server's error naming it; a reviewer finds their open reviews. Real server (conftest.py)."""

from __future__ import annotations

import base64
import json

import pytest

from federa_client.exceptions import FederaError, NotFound, ValidationError
from nodesim import NodeSim

DIGEST = "sha256:" + "5" * 64


def description(name: str, image: str) -> dict:
    """An author's description in vantage6's store format, with a central and a federated function."""
    return {
        "name": name,
        "display_name": "Python client average",
        "description": "Mean of a numeric column over all nodes",
        "image": image,
        "partitioning": "horizontal",
        "vantage6_version": "4.14",
        "code_url": "https://example.org/average",
        "functions": [
            {"name": "central_average", "type": "central", "display_name": "Average",
             "arguments": [{"name": "column_name", "type": "column"}],
             "databases": [{"name": "Database"}]},
            {"name": "partial_average", "type": "federated",
             "arguments": [{"name": "column_name", "type": "column"}],
             "output": {"kind": "count_table", "counts": "count"}},
        ],
    }


@pytest.fixture(scope="module")
def approved(root, server):
    """An algorithm approved by a reviewer of another organization (the store's policy lowered to one)."""
    root.store._call("PATCH", "/policy", json={"min_reviewers": 1, "min_reviewing_organizations": 1})
    org = root.organization.create("store-py-reviewers")
    name, password = "store-py-reviewer", "Store-Py-Reviewer-7!x"
    root.user.create(name, password=password, email=f"{name}@example.org", organization=org["id"])
    entry = root.store._call("POST", "/user", json={"username": name, "roles": ["reviewer"]})
    reviewer = server.client()
    reviewer.authenticate(name, password)
    made = root.store.submit(description("py-average", f"reg.example.org/py-average:1@{DIGEST}"))
    assert made["status"] == "awaiting reviewer assignment"
    review = root.store.assign_reviewer(made, entry["id"])
    assert reviewer.store.approve(review, "read the code")["algorithm_status"] == "approved"
    return {"id": made["id"], "reviewer": reviewer, "reviewer_id": entry["id"]}


def test_a_reviewer_finds_their_open_reviews_and_approves(root, approved):
    reviewer = approved["reviewer"]
    me = reviewer.store.me()
    assert me["id"] == approved["reviewer_id"] and "reviewer" in me["roles"]
    made = root.store.submit(description("py-next", f"reg.example.org/py-next:1@{DIGEST}"))
    review = root.store.assign_reviewer(made, me)
    open_ = reviewer.store.reviews(reviewer=me, status="under review")
    assert [(r["id"], r["algorithm_id"]) for r in open_] == [(review["id"], made["id"])]
    assert reviewer.store.reject(review, "no tests")["algorithm_status"] == "rejected"
    assert reviewer.store.reviews(reviewer=me, status="under review") == []
    assert [r["comment"] for r in reviewer.store.reviews(algorithm=made)] == ["no tests"]


def test_lists_searches_and_reads_an_algorithm_with_its_functions(root, approved):
    assert [a["name"] for a in root.store.list(search="mean numeric")] == ["py-average"]
    assert root.store.list(search="nothing-like-this") == []
    algorithm = root.store.get(approved["id"])
    assert algorithm["digest"] == DIGEST and algorithm["status"] == "approved"
    functions = {f["name"]: f for f in root.store.functions(approved["id"])}
    assert functions["central_average"]["type"] == "central"
    assert functions["central_average"]["arguments"][0]["name"] == "column_name"
    assert functions["partial_average"]["output"] == {"kind": "count_table", "counts": "count"}
    with pytest.raises(NotFound):
        root.store.get(999999)


def test_creates_a_task_from_algorithm_function_and_arguments(root, server, approved, unique):
    org = root.whoami["organization_id"]
    collab = root.collaboration.create(unique("store-py"), [org])
    node = NodeSim(server.api, root.node.create(collab["id"], organization_id=org)["api_key"])
    with pytest.warns(UserWarning, match="Offline node"):
        task = root.store.create_task(approved["id"], "central_average", {"column_name": "age"}, collab, [org])
    assert task["image"] == f"reg.example.org/py-average:1@{DIGEST}"
    assert task["name"] == "Average"
    sent = base64.b64decode(node.result_for(task["id"])["input"])
    assert sent.startswith(b"json.")
    assert json.loads(sent[5:]) == {"method": "central_average", "master": True, "args": [],
                                    "kwargs": {"column_name": "age"}, "output_format": "json"}

    with pytest.raises(ValidationError, match=r"argument 'column_name' must be a column name \(string\)"):
        root.store.create_task(approved["id"], "central_average", {"column_name": 3}, collab, [org])
    with pytest.raises(FederaError, match=r"has no function 'nope'; its functions: central_average, partial_average"):
        root.store.create_task(approved["id"], "nope", {}, collab, [org])
