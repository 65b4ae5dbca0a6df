"""A researcher's script written for vantage6 3.x's Python client: only vantage6's method names, parameter names
and defaults. tests/test_v6_compat.py runs this very text twice, once importing ``vantage6.client`` (a stand-in
that re-exports Federa's client, as a vantage6 user's environment would name it) and once importing
``federa_client``; the line below is the only one that differs.

``play_node(api_key, task_id, output)`` is the test's stand-in for the node of the other organization.
"""
from vantage6.client import Client  # IMPORT LINE


def main(host, port, username, password, play_node, tag):
    client = Client(host, port, "/api", verbose=True)
    client.authenticate(username, password)
    client.setup_encryption(None)
    seen = {}

    my_org = client.whoami.organization_id
    org = client.organization.create(f"v6-hospital-{tag}", "Street 1", "", "1234AB", "NL", f"{tag}.example.org")
    collab = client.collaboration.create(f"v6-study-{tag}", [my_org, org["id"]], False)
    node = client.node.create(collab["id"], org["id"], f"v6-node-{tag}")
    seen["node_has_key"] = bool(node.get("api_key"))

    # Listings: vantage6's pagination envelope, the bare form, and its post-filters.
    page = client.organization.list(name=f"v6-hospital-{tag}")
    seen["org_page"] = ([o["id"] for o in page["data"]], sorted(page["links"]))
    seen["my_collabs"] = collab["id"] in [c["id"] for c in client.collaboration.list()]
    seen["global_collabs"] = client.collaboration.list(scope="global", name=f"v6-study-{tag}",
                                                      include_metadata=False, fields=["id", "encrypted"])
    seen["nodes"] = client.node.list(collaboration=collab["id"], organization=org["id"], include_metadata=False,
                                     field="name")
    seen["own_org"] = client.organization.get()["id"] == my_org
    seen["own_user"] = client.user.get()["username"] == username

    # Users and roles with vantage6's positional order.
    user = client.user.create(f"v6-user-{tag}", "Ada", "Lovelace", "V6-Compat-Pw-1!", f"ada-{tag}@example.org",
                              org["id"], [], [])
    seen["user"] = (user["firstname"], user["lastname"], user["organization"]["id"] == org["id"])
    seen["user_update"] = client.user.update(user["id"], "Augusta")["firstname"]
    rule = client.rule.list(name="user", operation="VIEW", scope="ORGANIZATION", include_metadata=False,
                            per_page=100)
    role = client.role.create(f"v6-role-{tag}", "views users", [r["id"] for r in rule], org["id"])
    seen["role_update"] = client.role.update(role["id"], description="still views users")["description"]
    client.role.delete(role["id"])

    # A task and its results.
    task = client.task.create(collab["id"], [org["id"]], "average", "harbor.example.org/average:1",
                              "mean age", {"method": "average", "kwargs": {"column": "age"}}, "json")
    seen["task_listed"] = client.task.list(collaboration=collab["id"], filter_=("name", "average"),
                                           include_metadata=False, fields=["id", "name"])
    play_node(node["api_key"], task["id"], {"average": 41.5})
    results = client.wait_for_results(task["id"], 0.1)
    seen["wait"] = [r["result"] for r in results]
    seen["from_task"] = [r["result"] for r in client.result.from_task(task["id"])]
    seen["get"] = client.result.get(results[0]["id"], include_task=True)["task"]["id"] == task["id"]
    seen["result_list"] = [r["result"] for r in client.result.list(task=task["id"])["data"]]
    seen["get_results"] = [r["result"] for r in client.get_results(task_id=task["id"])]
    seen["get_result"] = client.get_results(id_=results[0]["id"])["result"]
    seen["with_results"] = len(client.task.get(task["id"], include_results=True)["results"])

    seen["version"] = "version" in client.util.get_server_version()
    client.task.delete(task["id"])
    return seen
