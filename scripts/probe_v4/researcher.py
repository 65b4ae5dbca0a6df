"""The researcher's workflow of scripts/probe-v4-client.py: a user the administrator's workflow made."""

import json

from probe_v4.common import ALGORITHM_INPUT, CONFIG, RESEARCHER, SUFFIX, Workflow, check, item, items, new_client

PLAIN = CONFIG["plain"]
ENCRYPTED = CONFIG["encrypted"]

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


@research.step("task.list (store): the tasks of a store")
def _(s):
    own = [t["id"] for t in items(s["c"].task.list(store=0, per_page=100), "tasks of the store inside the server")]
    check(s["task"] not in own, "a task run by its image is listed as one of the store's")


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


