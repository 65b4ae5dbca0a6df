"""The administrator's workflow of scripts/probe-v4-client.py."""

import json

from probe_v4.common import ALGORITHM_INPUT, CONFIG, RESEARCHER, SUFFIX, Workflow, check, item, items, new_client

PLAIN = CONFIG["plain"]
ENCRYPTED = CONFIG["encrypted"]

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
    users = items(s["c"].user.list(username="root", last_seen_from="2000-01-01"), "users")
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


@admin.step("store.list (all, by name)")
def _(s):
    s["stores"] = items(s["c"].store.list(), "algorithm stores")
    check([x["id"] for x in items(s["c"].store.list(name="this server"), "stores by name")] == [0], "by name")


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


@admin.step("store's rules of a role, of a user")
def _(s):
    roles = items(s["c"].store.role.list(), "store roles")
    manager = [r["id"] for r in roles if r["name"] == "store manager"]
    check(manager, f"no store manager role in {[r['name'] for r in roles]}")
    everything = items(s["c"].store.rule.list(per_page=100), "store rules")
    of_role = items(s["c"].store.rule.list(role=manager[0], per_page=100), "store manager's rules")
    check(len(of_role) == len(everything), f"store manager holds {len(of_role)} of {len(everything)} rules")
    mine = items(s["c"].store.rule.list(username=CONFIG["username"], per_page=100), "my store rules")
    check(len(mine) == len(everything), f"the administrator holds {len(mine)} of {len(everything)} rules")


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


