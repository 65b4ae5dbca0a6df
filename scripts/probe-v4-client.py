#!/usr/bin/env python3
"""A vantage6 4.14 user's script, run unchanged against Federa's 4.x surface (/v4/api).

Needs the vantage6 4.14 client importable (``from vantage6.client import Client``): it is not run in CI, because
neither the client nor all its dependencies can be installed from Debian. Run it against the federation that
scripts/probe-v4-federation.mjs starts (it writes the JSON file this script reads):

    node scripts/probe-v4-federation.mjs --port 5070 &
    python3 scripts/probe-v4-client.py .data/probe-v4/federation.json

Two workflows, each a list of steps calling only the client's public API: an administrator's (organizations,
collaborations, nodes, users, roles, rules, studies, algorithm stores) and a researcher's (a user the administrator
made, running the 4.x average algorithm with ``databases`` in a plain and an encrypted collaboration, reading runs
and results). A step passes when the call answers what a 4.x user's script would read from it. The last lines give
the steps passed per workflow; the exit code is 0 only when every step passed.
"""

import json
import logging
import sys
import time
import traceback

from vantage6.client import Client

CONFIG = json.load(open(sys.argv[1] if len(sys.argv) > 1 else ".data/probe-v4/federation.json"))
SUFFIX = str(int(time.time()))[-6:]
VERBOSE = "-v" in sys.argv


class Failed(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failed(what)


def items(listing, what):
    """The items of a 4.x listing ({data: [...], links: {...}}); a step fails on anything else."""
    check(isinstance(listing, dict) and isinstance(listing.get("data"), list), f"{what}: not a listing: {listing}")
    return listing["data"]


def item(answer, what, *fields):
    check(isinstance(answer, dict) and "id" in answer, f"{what}: not an item: {answer}")
    for field in fields:
        check(field in answer, f"{what}: no field '{field}' in {sorted(answer)}")
    return answer


class Workflow:
    def __init__(self, name):
        self.name = name
        self.steps = []
        self.state = {}

    def step(self, title):
        def register(fn):
            self.steps.append((title, fn))
            return fn

        return register

    def run(self):
        passed = 0
        print(f"\n== {self.name}")
        for title, fn in self.steps:
            try:
                fn(self.state)
                passed += 1
                print(f"  PASS  {title}")
            except Exception as error:  # a step's failure is reported, and the next step runs
                reason = str(error) if isinstance(error, Failed) else f"{type(error).__name__}: {error}"
                print(f"  FAIL  {title}: {reason[:400]}")
                if VERBOSE and not isinstance(error, Failed):
                    traceback.print_exc()
        print(f"== {self.name}: {passed}/{len(self.steps)} steps passed")
        return passed, len(self.steps)


def new_client():
    return Client(CONFIG["host"], CONFIG["port"], CONFIG["api_path"], log_level="critical")


PLAIN = CONFIG["plain"]
ENCRYPTED = CONFIG["encrypted"]
ALGORITHM_INPUT = {"method": "central_average", "kwargs": {"column": "age"}}

# ---------------------------------------------------------------- administrator
admin = Workflow("administrator")


@admin.step("authenticate as root")
def _(s):
    s["c"] = c = new_client()
    c.authenticate(CONFIG["username"], CONFIG["password"])
    check(c.token and c.whoami and c.whoami.organization_id, "no token or identity")


@admin.step("setup_encryption(None)")
def _(s):
    s["c"].setup_encryption(None)


@admin.step("util.get_server_version / get_server_health")
def _(s):
    check("version" in s["c"].util.get_server_version(), "no version")
    check(isinstance(s["c"].util.get_server_health(), dict), "no health")


@admin.step("organization.list")
def _(s):
    check(len(items(s["c"].organization.list(), "organizations")) >= 2, "fewer than 2 organizations")


@admin.step("organization.get (own)")
def _(s):
    item(s["c"].organization.get(), "own organization", "name", "public_key", "collaborations")


@admin.step("organization.create")
def _(s):
    org = s["c"].organization.create(name=f"probe-org-{SUFFIX}", address1="", address2="", zipcode="",
                                     country="NL", domain=f"probe{SUFFIX}.example")
    s["org"] = item(org, "new organization")["id"]


@admin.step("organization.update")
def _(s):
    check(item(s["c"].organization.update(s["org"], country="BE"), "updated")["country"] == "BE", "not updated")


@admin.step("collaboration.list (global)")
def _(s):
    ids = [c["id"] for c in items(s["c"].collaboration.list(scope="global"), "collaborations")]
    check(PLAIN["collaboration_id"] in ids, f"plain collaboration missing from {ids}")


@admin.step("collaboration.get")
def _(s):
    col = item(s["c"].collaboration.get(ENCRYPTED["collaboration_id"]), "collaboration", "encrypted", "organizations")
    check(col["encrypted"] is True, "encrypted collaboration not shown encrypted")


@admin.step("collaboration.create")
def _(s):
    col = s["c"].collaboration.create(f"probe-col-{SUFFIX}", [s["org"]], encrypted=False)
    s["col"] = item(col, "new collaboration")["id"]


@admin.step("collaboration.update (name)")
def _(s):
    check(item(s["c"].collaboration.update(s["col"], name=f"probe-col2-{SUFFIX}"), "updated")["name"]
          == f"probe-col2-{SUFFIX}", "not renamed")


@admin.step("collaboration.add_organization / remove_organization")
def _(s):
    s["c"].collaboration.add_organization(PLAIN["organization_ids"][1], s["col"])
    members = [o["id"] for o in items(s["c"].organization.list(collaboration=s["col"]), "members")]
    check(PLAIN["organization_ids"][1] in members, f"not added: {members}")
    s["c"].collaboration.remove_organization(PLAIN["organization_ids"][1], s["col"])
    members = [o["id"] for o in items(s["c"].organization.list(collaboration=s["col"]), "members")]
    check(PLAIN["organization_ids"][1] not in members, f"not removed: {members}")


@admin.step("node.list (collaboration, online)")
def _(s):
    nodes = items(s["c"].node.list(collaboration=PLAIN["collaboration_id"], is_online=True), "nodes")
    check(sorted(n["id"] for n in nodes) == sorted(PLAIN["node_ids"]), f"nodes {nodes}")


@admin.step("node.get")
def _(s):
    item(s["c"].node.get(PLAIN["node_ids"][0]), "node", "status", "organization", "collaboration")


@admin.step("node.create / update / delete")
def _(s):
    node = item(s["c"].node.create(collaboration=s["col"], organization=s["org"], name=f"probe-node-{SUFFIX}"),
                "new node", "api_key")
    renamed = s["c"].node.update(node["id"], name=f"probe-node2-{SUFFIX}")
    check(item(renamed, "renamed node")["name"] == f"probe-node2-{SUFFIX}", "not renamed")
    s["c"].node.delete(node["id"])
    check(not items(s["c"].node.list(collaboration=s["col"]), "nodes left"), "node not deleted")


@admin.step("rule.list / rule.get")
def _(s):
    rules = items(s["c"].rule.list(name="task", scope="GLOBAL", per_page=100), "rules")
    check(rules, "no task rules")
    item(s["c"].rule.get(rules[0]["id"]), "rule", "name", "operation", "scope")


@admin.step("role.list / role.get")
def _(s):
    roles = items(s["c"].role.list(name="Researcher", include_root=True), "roles")
    check(roles, "no Researcher role")
    s["researcher_role"] = item(s["c"].role.get(roles[0]["id"]), "role", "rules")["id"]


@admin.step("role.create / update / delete")
def _(s):
    rules = [r["id"] for r in items(s["c"].rule.list(name="organization", scope="GLOBAL"), "rules")]
    role = item(s["c"].role.create(f"probe-role-{SUFFIX}", "a probe role", rules, s["org"]), "new role")
    updated = s["c"].role.update(role["id"], description="changed")
    check(item(updated, "updated role")["description"] == "changed", "not updated")
    s["c"].role.delete(role["id"])
    check(not items(s["c"].role.list(name=f"probe-role-{SUFFIX}"), "roles"), "role not deleted")


@admin.step("user.list / user.get")
def _(s):
    users = items(s["c"].user.list(username="root"), "users")
    check(len(users) == 1, f"root not found once: {users}")
    item(s["c"].user.get(users[0]["id"]), "user", "username", "organization", "roles")


@admin.step("user.create (a researcher)")
def _(s):
    s["password"] = f"Probe-{SUFFIX}-Pw1!"
    user = s["c"].user.create(username=f"probe-researcher-{SUFFIX}", firstname="Rosa", lastname="Researcher",
                              password=s["password"], email=f"rosa{SUFFIX}@probe.example",
                              organization=PLAIN["organization_ids"][0], roles=[s["researcher_role"]], rules=[])
    s["user"] = item(user, "new user")["id"]
    RESEARCHER["username"] = f"probe-researcher-{SUFFIX}"
    RESEARCHER["password"] = s["password"]


@admin.step("user.update")
def _(s):
    check(item(s["c"].user.update(s["user"], lastname="Probe"), "updated user")["lastname"] == "Probe", "not updated")


@admin.step("study.create / list / get")
def _(s):
    study = s["c"].study.create(f"probe-study-{SUFFIX}", PLAIN["organization_ids"][:1], PLAIN["collaboration_id"])
    s["study"] = item(study, "new study")["id"]
    RESEARCHER["study"] = s["study"]
    studies = items(s["c"].study.list(collaboration=PLAIN["collaboration_id"]), "studies")
    check(s["study"] in [x["id"] for x in studies], "study not listed")
    item(s["c"].study.get(s["study"]), "study", "organizations", "collaboration")


@admin.step("study.update / add_organization / remove_organization")
def _(s):
    s["c"].study.update(s["study"], name=f"probe-study2-{SUFFIX}")
    s["c"].study.add_organization(PLAIN["organization_ids"][1], s["study"])
    members = [o["id"] for o in items(s["c"].organization.list(study=s["study"]), "study members")]
    check(sorted(members) == sorted(PLAIN["organization_ids"]), f"members {members}")
    s["c"].study.remove_organization(PLAIN["organization_ids"][1], s["study"])
    members = [o["id"] for o in items(s["c"].organization.list(study=s["study"]), "study members")]
    check(members == PLAIN["organization_ids"][:1], f"members {members}")


@admin.step("user.list / role.list / rule.list filtered by organization, role")
def _(s):
    users = items(s["c"].user.list(organization=PLAIN["organization_ids"][0]), "users")
    check(s["user"] in [u["id"] for u in users], "new user not among its organization's users")
    check(items(s["c"].role.list(organization=s["org"], include_root=True), "roles") is not None, "roles")
    rules = items(s["c"].rule.list(role=s["researcher_role"], per_page=100), "researcher rules")
    check(any(r["name"] == "task" and r["operation"] == "CREATE" for r in rules), "no task CREATE rule")


@admin.step("collaboration.list (encrypted only)")
def _(s):
    cols = items(s["c"].collaboration.list(scope="global", encrypted=True), "encrypted collaborations")
    check([c["id"] for c in cols] == [ENCRYPTED["collaboration_id"]], f"{[c['id'] for c in cols]}")


@admin.step("node.kill_tasks")
def _(s):
    answer = s["c"].node.kill_tasks(PLAIN["node_ids"][1])
    check(isinstance(answer, dict) and "msg" in answer and "error" not in str(answer.get("code", "")), f"{answer}")


@admin.step("store.list")
def _(s):
    s["stores"] = items(s["c"].store.list(), "algorithm stores")


@admin.step("store.set(0) / algorithm.list: the store inside the server")
def _(s):
    own = s["c"].store.set(0)
    check(item(own, "own store", "url")["url"].startswith("http"), f"own store's url {own.get('url')!r}")
    items(s["c"].algorithm.list(), "algorithms")


@admin.step("store.create (link a store) / store.get")
def _(s):
    url = f"{CONFIG['host']}:{CONFIG['port']}/store"
    store = item(s["c"].store.create(url, f"probe-store-{SUFFIX}", collaboration=s["col"]), "linked store", "url")
    s["store"] = store["id"]
    item(s["c"].store.get(s["store"]), "store", "url", "collaborations")


@admin.step("store.set / algorithm.list (in the store)")
def _(s):
    s["c"].store.set(s["store"])
    check(s["c"].store.url, "store url not set")
    listing = s["c"].algorithm.list()
    items(listing, "algorithms")


@admin.step("store's policies, users, roles, rules, reviews")
def _(s):
    check(isinstance(s["c"].store.policy.get(), dict), "policies")
    items(s["c"].store.user.list(), "store users")
    items(s["c"].store.role.list(), "store roles")
    items(s["c"].store.rule.list(), "store rules")
    items(s["c"].store.review.list(), "store reviews")


@admin.step("store.update (name)")
def _(s):
    updated = s["c"].store.update(s["store"], name=f"probe-store2-{SUFFIX}")
    check(item(updated, "updated store")["name"] == f"probe-store2-{SUFFIX}", "not renamed")


@admin.step("store.delete")
def _(s):
    s["c"].store.delete(s["store"])
    check(s["store"] not in [x["id"] for x in items(s["c"].store.list(), "stores")], "store still linked")


@admin.step("collaboration.delete")
def _(s):
    s["c"].collaboration.delete(s["col"], delete_dependents=True)
    check(s["col"] not in [c["id"] for c in items(s["c"].collaboration.list(scope="global"), "collabs")],
          "collaboration still there")


@admin.step("study.delete / user.delete")
def _(s):
    extra = item(s["c"].study.create(f"probe-study3-{SUFFIX}", PLAIN["organization_ids"], PLAIN["collaboration_id"]),
                 "another study")
    s["c"].study.delete(extra["id"])
    check(extra["id"] not in [x["id"] for x in items(s["c"].study.list(), "studies")], "study still there")
    user = item(s["c"].user.create(username=f"probe-gone-{SUFFIX}", firstname="Gone", lastname="Soon",
                                   password=f"Gone-{SUFFIX}-Pw1!", email=f"gone{SUFFIX}@probe.example",
                                   organization=s["org"]), "throwaway user")
    s["c"].user.delete(user["id"])
    check(not items(s["c"].user.list(username=f"probe-gone-{SUFFIX}"), "users"), "user still there")


@admin.step("organization.delete")
def _(s):
    s["c"].organization.delete(s["org"], delete_dependents=True)
    check(s["org"] not in [o["id"] for o in items(s["c"].organization.list(per_page=100), "orgs")], "org still there")


# ---------------------------------------------------------------- researcher
RESEARCHER = {}
research = Workflow("researcher")


def average_of(results):
    rows = items(results, "results")
    check(len(rows) == 1, f"{len(rows)} results")
    out = json.loads(rows[0]["result"])
    check(out.get("count") == 7 and abs(out["average"] - 245 / 7) < 1e-9, f"wrong average {out}")
    return out


@research.step("authenticate as the researcher the administrator made")
def _(s):
    check(RESEARCHER.get("username"), "no researcher was made")
    s["c"] = c = new_client()
    c.authenticate(RESEARCHER["username"], RESEARCHER["password"])
    check(c.token and c.whoami.organization_id == PLAIN["organization_ids"][0], "wrong identity")
    c.setup_encryption(None)


@research.step("organization.list / get")
def _(s):
    check(len(items(s["c"].organization.list(), "organizations")) >= 2, "fewer than 2")
    item(s["c"].organization.get(PLAIN["organization_ids"][1]), "organization", "name")


@research.step("collaboration.list / get / setup_collaboration")
def _(s):
    ids = [c["id"] for c in items(s["c"].collaboration.list(), "collaborations")]
    check(PLAIN["collaboration_id"] in ids, f"own collaborations {ids}")
    item(s["c"].collaboration.get(PLAIN["collaboration_id"]), "collaboration")
    s["c"].setup_collaboration(PLAIN["collaboration_id"])


@research.step("node.list (collaboration): every node of the collaboration")
def _(s):
    nodes = items(s["c"].node.list(collaboration=PLAIN["collaboration_id"]), "nodes")
    check(sorted(n["id"] for n in nodes) == sorted(PLAIN["node_ids"]), f"sees nodes {[n['id'] for n in nodes]}")


@research.step("task.create with databases (plain)")
def _(s):
    task = s["c"].task.create(organizations=PLAIN["organization_ids"][:1], name="probe average", image=CONFIG["image"],
                              description="central average of age", input_=ALGORITHM_INPUT,
                              collaboration=PLAIN["collaboration_id"], databases=[{"label": "default"}])
    s["task"] = item(task, "new task", "job_id", "databases")["id"]


@research.step("wait_for_results (plain): the average")
def _(s):
    average_of(s["c"].wait_for_results(s["task"], interval=0.5))


@research.step("run.from_task: input decoded")
def _(s):
    runs = items(s["c"].run.from_task(s["task"]), "runs")
    check(len(runs) == 1 and runs[0]["status"] == "completed", f"runs {runs}")
    check(json.loads(runs[0]["input"])["method"] == "central_average", f"input {runs[0]['input']!r}")
    s["run"] = runs[0]["id"]


@research.step("result.from_task / result.get")
def _(s):
    average_of(s["c"].result.from_task(s["task"]))
    result_id = items(s["c"].result.from_task(s["task"]), "results")[0]["id"]
    check(json.loads(s["c"].result.get(result_id))["count"] == 7, "result.get")


@research.step("run.get / run.list")
def _(s):
    run = item(s["c"].run.get(s["run"], include_task=True), "run", "task", "node", "status")
    check(run["task"]["id"] == s["task"], "run's task")
    check(len(items(s["c"].run.list(task=s["task"]), "runs")) == 1, "run.list")


@research.step("task.get / task.list (children of the job)")
def _(s):
    task = item(s["c"].task.get(s["task"], include_results=True), "task", "status", "job_id")
    check(task["status"] == "completed", f"status {task['status']}")
    children = items(s["c"].task.list(parent=s["task"]), "children")
    check(len(children) == 1, f"{len(children)} partial tasks")


@research.step("task.list (include results, user-created, by database) / run.list (include task, by state)")
def _(s):
    tasks = items(s["c"].task.list(collaboration=PLAIN["collaboration_id"], include_results=True, user_created=True,
                                   database="default"), "tasks")
    check([t["id"] for t in tasks] == [s["task"]], f"tasks {[t['id'] for t in tasks]}")
    check(isinstance(tasks[0].get("results"), list) and len(tasks[0]["results"]) == 1, "results not included")
    runs = items(s["c"].run.list(task=s["task"], include_task=True, state="completed"), "runs")
    check(len(runs) == 1 and runs[0]["task"]["id"] == s["task"], f"runs {runs}")


@research.step("task.create in a study")
def _(s):
    check(RESEARCHER.get("study"), "no study was made")
    task = s["c"].task.create(organizations=PLAIN["organization_ids"][:1], name="probe study task",
                              image=CONFIG["image"], description="in a study", input_=ALGORITHM_INPUT,
                              study=RESEARCHER["study"], databases="default")
    s["study_task"] = item(task, "study task", "study")["id"]
    check(task["study"] and task["study"]["id"] == RESEARCHER["study"], f"study {task.get('study')}")
    tasks = items(s["c"].task.list(study=RESEARCHER["study"]), "study tasks")
    check(s["study_task"] in [t["id"] for t in tasks], "study task not listed")


@research.step("task.kill / task.delete")
def _(s):
    s["c"].task.kill(s["study_task"])
    s["c"].task.delete(s["study_task"])
    check(not items(s["c"].task.list(name="probe study task"), "tasks"), "task not deleted")


@research.step("setup_encryption with the organization's key")
def _(s):
    s["c"].setup_encryption(ENCRYPTED["private_key"])
    check(type(s["c"].cryptor).__name__ == "RSACryptor", "no RSA cryptor")


@research.step("task.create with databases (encrypted)")
def _(s):
    task = s["c"].task.create(organizations=ENCRYPTED["organization_ids"][:1], name="probe average enc",
                              image=CONFIG["image"], description="central average of age, encrypted",
                              input_=ALGORITHM_INPUT, collaboration=ENCRYPTED["collaboration_id"],
                              databases=[{"label": "default"}])
    s["etask"] = item(task, "new task")["id"]


@research.step("wait_for_results (encrypted): the average, decrypted")
def _(s):
    average_of(s["c"].wait_for_results(s["etask"], interval=0.5))


@research.step("run.from_task (encrypted): input decrypted")
def _(s):
    runs = items(s["c"].run.from_task(s["etask"]), "runs")
    check(json.loads(runs[0]["input"])["method"] == "central_average", f"input {runs[0]['input']!r}"[:200])


@research.step("result.from_task (encrypted)")
def _(s):
    average_of(s["c"].result.from_task(s["etask"]))


@research.step("util.change_my_password (it ends the session), then log in with the new one")
def _(s):
    new = RESEARCHER["password"] + "x"
    answer = s["c"].util.change_my_password(RESEARCHER["password"], new)
    check("code" not in answer, f"{answer}")
    again = new_client()
    again.authenticate(RESEARCHER["username"], new)
    check(again.token, "no token with the new password")


if __name__ == "__main__":
    logging.disable(logging.CRITICAL)
    totals = [admin.run(), research.run()]
    print()
    for wf, (passed, total) in zip([admin, research], totals):
        print(f"{wf.name}: {passed}/{total}")
    sys.exit(0 if all(p == t for p, t in totals) else 1)
