"""Management functions against the real server: organizations, collaborations, nodes, users, roles, rules,
paging, and the errors the server gives for refused requests."""

from __future__ import annotations

import pytest
import requests

from conftest import ROOT_PASSWORD
from federa_client import AuthenticationError, NotFound, PermissionDenied, ValidationError

USER_PASSWORD = "User-Pass-123!"


# --- organizations and paging -----------------------------------------------------------------------------

def test_organization_create_get_update_list(root, unique):
    name = unique("org")
    org = root.organization.create(name, address1="Main street 1", zipcode="1234 AB", country="NL",
                                   domain="org.example")
    assert org["name"] == name and org["country"] == "NL" and org["domain"] == "org.example"
    assert org["public_key"] == ""
    assert root.organization.get(org["id"])["address1"] == "Main street 1"
    assert root.organization.get(org)["id"] == org["id"]  # an object with an id works too

    updated = root.organization.update(org["id"], country="BE", domain="")
    assert updated["country"] == "BE" and updated["domain"] == "" and updated["zipcode"] == "1234 AB"
    assert [o["id"] for o in root.organization.list_all(name=name)] == [org["id"]]
    assert [o["id"] for o in root.organization.list_all(name=name, country="BE")] == [org["id"]]
    assert root.organization.list_all(name=name, country="NL") == []
    assert root.organization.collaborations(org["id"]) == []
    assert root.organization.nodes(org["id"]) == []


def test_paging_collects_every_page_unless_page_is_given(root, unique):
    prefix = unique("paged")
    made = [root.organization.create(f"{prefix}-{i:02d}")["id"] for i in range(12)]
    pattern = f"{prefix}-%"

    everything = root.organization.list_all(name=pattern)
    assert sorted(o["id"] for o in everything) == made and everything.total == 12

    calls = []
    original = root._session.request

    def counting(method, url, **kwargs):
        calls.append(dict(kwargs.get("params") or {}))
        return original(method, url, **kwargs)

    root._session.request = counting
    try:
        small_pages = root.organization.list_all(name=pattern, per_page=5)
    finally:
        root._session.request = original
    assert sorted(o["id"] for o in small_pages) == made
    assert [c["page"] for c in calls] == [1, 2, 3] and all(c["per_page"] == 5 for c in calls)

    page2 = root.organization.list_all(name=pattern, page=2, per_page=5)
    assert len(page2) == 5 and page2.total == 12
    page3 = root.organization.list_all(name=pattern, page=3, per_page=5)
    assert len(page3) == 2 and page3.total == 12
    assert len({o["id"] for o in page2} | {o["id"] for o in page3}) == 7
    assert root.organization.list_all(name=pattern, page=4, per_page=5) == []


def test_missing_things_raise_not_found(root):
    with pytest.raises(NotFound) as info:
        root.organization.get(987654)
    assert info.value.status == 404 and "GET /organization/987654" in str(info.value)
    for call in (lambda: root.collaboration.get(987654), lambda: root.node.delete(987654),
                 lambda: root.user.update(987654, firstname="x"), lambda: root.role.get(987654),
                 lambda: root.rule.get(987654), lambda: root.task.get(987654), lambda: root.result.get(987654)):
        with pytest.raises(NotFound):
            call()


# --- collaborations ---------------------------------------------------------------------------------------

def test_collaboration_lifecycle(root, unique):
    a = root.organization.create(unique("col-org"))["id"]
    b = root.organization.create(unique("col-org"))["id"]
    c = root.organization.create(unique("col-org"))["id"]
    name = unique("collab")
    collab = root.collaboration.create(name, [a, b], encrypted=True)
    assert collab["name"] == name and collab["encrypted"] is True
    assert sorted(o["id"] for o in collab["organizations"]) == [a, b]

    with pytest.raises(ValidationError) as info:
        root.collaboration.create(name, [a])
    assert info.value.status == 400 and info.value.server_message
    assert info.value.server_message in str(info.value)

    assert [x["id"] for x in root.collaboration.list_all(name=name)] == [collab["id"]]
    assert collab["id"] in [x["id"] for x in root.collaboration.list_all(organization_id=a)]
    new_name = unique("renamed")
    assert root.collaboration.update(collab["id"], name=new_name, encrypted=False)["encrypted"] is False
    assert root.collaboration.get(collab["id"])["name"] == new_name

    members = root.collaboration.add_organization(collab["id"], c)
    assert sorted(o["id"] for o in members) == [a, b, c]
    assert sorted(o["id"] for o in root.collaboration.organizations(collab["id"])) == [a, b, c]
    remaining = root.collaboration.remove_organization(collab["id"], b)
    assert sorted(o["id"] for o in remaining) == [a, c]
    assert sorted(o["id"] for o in root.collaboration.update(collab["id"], organizations=[b])["organizations"]) \
        == [b]

    node = root.node.create(collab["id"], organization_id=b)
    assert [n["id"] for n in root.collaboration.nodes(collab["id"])] == [node["id"]]
    root.collaboration.remove_node(collab["id"], node["id"])
    assert root.collaboration.nodes(collab["id"]) == []
    assert [n["id"] for n in root.collaboration.add_node(collab["id"], node["id"])] == [node["id"]]
    assert root.collaboration.tasks(collab["id"]) == []

    root.collaboration.delete(collab["id"])
    with pytest.raises(NotFound):
        root.collaboration.get(collab["id"])


# --- nodes ------------------------------------------------------------------------------------------------

def test_node_lifecycle(root, server, unique):
    org = root.organization.create(unique("node-org"))["id"]
    other = root.organization.create(unique("node-org"))["id"]
    collab = root.collaboration.create(unique("node-collab"), [org, other])["id"]

    node = root.node.create(collab, organization_id=org, name=unique("node"))
    api_key = node["api_key"]
    assert api_key and node["organization"]["id"] == org and node["collaboration"]["id"] == collab
    assert "api_key" not in root.node.get(node["id"])
    default_name = root.node.create(collab, organization_id=other)
    assert default_name["name"]

    with pytest.raises(ValidationError, match="POST /node"):
        root.node.create(collab, organization_id=org)  # one node per organization per collaboration

    assert sorted(n["id"] for n in root.node.list_all(collaboration_id=collab)) == sorted([node["id"],
                                                                                      default_name["id"]])
    assert [n["id"] for n in root.node.list_all(collaboration_id=collab, organization_id=org)] == [node["id"]]
    renamed = unique("renamed-node")
    assert root.node.update(node["id"], name=renamed)["name"] == renamed
    assert [n["id"] for n in root.organization.nodes(org)] == [node["id"]]

    def node_login(key):
        return requests.post(f"{server.api}/token/node", json={"api_key": key}, timeout=30).status_code

    assert node_login(api_key) == 200
    new_key = root.node.reset_api_key(node["id"])
    assert new_key != api_key and node_login(new_key) == 200 and node_login(api_key) == 401

    root.node.delete(node["id"])
    with pytest.raises(NotFound):
        root.node.get(node["id"])


# --- users ------------------------------------------------------------------------------------------------

def test_user_lifecycle(root, server, unique):
    unique_org_name = unique("user-org")
    org = root.organization.create(unique_org_name)["id"]
    viewer = root.role.list_all(name="Viewer")
    username = unique("alice")
    user = root.user.create(username, password=USER_PASSWORD, email=f"{username}@example.org", firstname="Alice",
                            lastname="Smith", organization_id=org, roles=[r["id"] for r in viewer])
    assert user["username"] == username and user["organization"]["id"] == org
    assert [r["id"] for r in user["roles"]] == [viewer[0]["id"]]
    assert "password" not in user

    assert [u["id"] for u in root.user.list_all(username=username)] == [user["id"]]
    assert [u["id"] for u in root.user.list_all(organization_id=org)] == [user["id"]]
    assert root.user.get(user["id"])["firstname"] == "Alice"
    changed = root.user.update(user["id"], firstname="Alicia", email=f"new-{username}@example.org")
    assert changed["firstname"] == "Alicia" and changed["email"] == f"new-{username}@example.org"

    alice = server.client()
    me = alice.authenticate(username, USER_PASSWORD)
    assert me == {"type": "user", "id": user["id"], "username": username, "name": "Alicia", "organization_id": org,
                  "organization_name": unique_org_name}
    # vantage6's attribute form of the same object.
    assert (me.id_, me.type_, me.name, me.organization_id, me.organization_name) == (
        user["id"], "user", "Alicia", org, unique_org_name)
    assert alice.user.get(user["id"])["username"] == username

    root.user.delete(user["id"])
    with pytest.raises(NotFound):
        root.user.get(user["id"])
    with pytest.raises(AuthenticationError):
        alice.user.get(user["id"])  # the session belongs to a user that no longer exists


def test_user_changes_own_email_with_current_password(root, server, unique):
    org = root.organization.create(unique("email-org"))["id"]
    username = unique("bob")
    user = root.user.create(username, password=USER_PASSWORD, email=f"{username}@example.org", organization_id=org,
                            roles=[r["id"] for r in root.role.list_all(name="Viewer")])
    bob = server.client()
    bob.authenticate(username, USER_PASSWORD)
    with pytest.raises(ValidationError) as refused:
        bob.user.update(user["id"], email=f"new-{username}@example.org")
    assert refused.value.status == 400 and "current_password" in refused.value.server_message
    changed = bob.user.update(user["id"], email=f"new-{username}@example.org", current_password=USER_PASSWORD)
    assert changed["email"] == f"new-{username}@example.org"


def test_user_create_refusals(root, unique):
    username = unique("bob")
    with pytest.raises(ValidationError) as info:
        root.user.create(username, password="Wq1!x", email=f"{username}@example.org", firstname="B", lastname="B")
    assert info.value.status == 400 and info.value.server_message and "Wq1!x" not in str(info.value)
    root.user.create(username, password=USER_PASSWORD, email=f"{username}@example.org", firstname="B", lastname="B")
    with pytest.raises(ValidationError):
        root.user.create(username, password=USER_PASSWORD, email=f"other-{username}@example.org", firstname="B", lastname="B")
    with pytest.raises(NotFound):
        root.user.create(unique("carol"), password=USER_PASSWORD, email=f"{unique('c')}@example.org", firstname="C",
                         lastname="C", organization_id=987654)


def test_change_password(root, server, unique):
    username = unique("dave")
    root.user.create(username, password=USER_PASSWORD, email=f"{username}@example.org", firstname="D", lastname="D")
    dave = server.client()
    dave.authenticate(username, USER_PASSWORD)
    new_password = "Another-Pass-456?"
    dave.change_password(USER_PASSWORD, new_password)
    with pytest.raises(AuthenticationError):
        server.client().authenticate(username, USER_PASSWORD)
    server.client().authenticate(username, new_password)


# --- rules and roles --------------------------------------------------------------------------------------

def test_rules(root):
    rules = root.rule.list_all()
    assert len(rules) == rules.total and len(rules) > 20
    view_users = root.rule.list_all(name="user", operation="VIEW", scope="GLOBAL")
    assert len(view_users) == 1
    rule = root.rule.find("user", "view", "global")
    assert rule["id"] == view_users[0]["id"] and rule["operation"] == "VIEW" and rule["scope"] == "GLOBAL"
    assert root.rule.get(rule["id"])["name"] == "user"
    with pytest.raises(NotFound):
        root.rule.find("no-such-resource", "VIEW", "GLOBAL")


def test_role_lifecycle(root, unique):
    org = root.organization.create(unique("role-org"))["id"]
    view_org_users = root.rule.find("user", "VIEW", "ORGANIZATION")["id"]
    view_org = root.rule.find("organization", "VIEW", "ORGANIZATION")["id"]
    create_org_users = root.rule.find("user", "CREATE", "ORGANIZATION")["id"]
    name = unique("role")

    role = root.role.create(name, "can view the users of its organization", rules=[view_org_users],
                            organization_id=org)
    assert role["name"] == name and role["organization"]["id"] == org
    assert [r["id"] for r in role["rules"]] == [view_org_users]
    assert root.role.get(role["id"])["description"] == "can view the users of its organization"
    assert role["id"] in [r["id"] for r in root.role.list_all(organization_id=org)]
    assert [r["id"] for r in root.role.list_all(name=name)] == [role["id"]]
    assert role["id"] in [r["id"] for r in root.role.list_all(rule_id=view_org_users, organization_id=[org])]

    updated = root.role.update(role["id"], description="changed", rules=[view_org_users, view_org])
    assert updated["description"] == "changed"
    assert sorted(r["id"] for r in root.role.rules(role["id"])) == sorted([view_org_users, view_org])
    root.role.add_rule(role["id"], create_org_users)
    assert create_org_users in [r["id"] for r in root.role.rules(role["id"])]
    root.role.remove_rule(role["id"], create_org_users)
    assert create_org_users not in [r["id"] for r in root.role.rules(role["id"])]

    empty = root.role.create(unique("empty-role"), "no rules at all")
    assert not empty["rules"]

    root.role.delete(role["id"])
    with pytest.raises(NotFound):
        root.role.get(role["id"])


# --- permissions ------------------------------------------------------------------------------------------

def test_missing_permission_raises_permission_denied(root, server, unique):
    org = root.organization.create(unique("perm-org"))["id"]
    username = unique("norole")
    user = root.user.create(username, password=USER_PASSWORD, email=f"{username}@example.org", firstname="N", lastname="R",
                            organization_id=org)
    plain = server.client()
    plain.authenticate(username, USER_PASSWORD)
    assert plain.user.get(user["id"])["id"] == user["id"]  # everyone may see themselves

    with pytest.raises(PermissionDenied) as info:
        plain.user.list_all()
    assert info.value.status == 401 and "permission denied for GET /user" in str(info.value)
    with pytest.raises(PermissionDenied, match="POST /organization"):
        plain.organization.create(unique("not-allowed"))
    with pytest.raises(PermissionDenied):
        plain.collaboration.create(unique("not-allowed"), [org])
    with pytest.raises(PermissionDenied):
        plain.role.create(unique("not-allowed"), "x", rules=[root.rule.find("user", "VIEW", "GLOBAL")["id"]])
    assert ROOT_PASSWORD not in str(info.value)
