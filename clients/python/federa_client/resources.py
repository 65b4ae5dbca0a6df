"""The resource sub-objects of :class:`federa_client.Client` (``client.user``, ``client.task``, ...).

Every ``list(**filters)`` takes the API's query filters as keyword arguments (see docs/client-python.md and the
server's ``/apidocs``). Without ``page=`` it collects every page; with ``page=`` (and optionally ``per_page=``) it
returns that page only. The returned list has a ``total`` attribute (the server's ``total-count``). ``None``
values are left out, ``True`` is sent as ``true`` and lists become repeated parameters.

Methods return the server's JSON objects as dictionaries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Union

from .encryption import EncryptionError
from .exceptions import EncryptionSetupError, NotFound
from .serialization import serialize

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client, ResultList

__all__ = [
    "UserResource",
    "OrganizationResource",
    "CollaborationResource",
    "NodeResource",
    "TaskResource",
    "ResultResource",
    "RoleResource",
    "RuleResource",
]

IdLike = Union[int, str, Dict[str, Any]]


def _id(value: IdLike, what: str = "id") -> int:
    """Accept an int, a numeric string, or an object with an ``id`` (e.g. what ``get`` returned)."""
    if isinstance(value, dict):
        value = value.get("id")
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{what} must be an integer id, got {value!r}")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be an integer id, got {value!r}") from None


def _ids(values: Optional[Iterable[IdLike]], what: str) -> Optional[List[int]]:
    if values is None:
        return None
    return [_id(v, what) for v in values]


def _body(**fields: Any) -> Dict[str, Any]:
    """Only the fields that were given (not ``None``)."""
    return {k: v for k, v in fields.items() if v is not None}


class _Resource:
    endpoint = ""
    kind = ""

    def __init__(self, client: "Client"):
        self._client = client

    def list(self, **filters: Any) -> "ResultList":
        """List the resource with the API's filters; every page unless ``page=`` is given."""
        return self._client.collect(self.endpoint, filters)

    def get(self, id: IdLike) -> Dict[str, Any]:
        """One item by id. Raises :class:`~federa_client.exceptions.NotFound` when it does not exist."""
        return self._client.request_json("GET", f"{self.endpoint}/{_id(id)}")

    def _create(self, body: Dict[str, Any], label: str) -> Dict[str, Any]:
        self._client.log(f"Creating {self.kind} {label}".rstrip())
        return self._client.request_json("POST", self.endpoint, json=body)

    def _update(self, id: IdLike, body: Dict[str, Any]) -> Dict[str, Any]:
        self._client.log(f"Updating {self.kind} {_id(id)}")
        return self._client.request_json("PATCH", f"{self.endpoint}/{_id(id)}", json=body)

    def _delete(self, id: IdLike) -> Dict[str, Any]:
        self._client.log(f"Deleting {self.kind} {_id(id)}")
        return self._client.request_json("DELETE", f"{self.endpoint}/{_id(id)}") or {}


class UserResource(_Resource):
    """Users. Filters of ``list``: ``username``, ``firstname``, ``lastname``, ``email`` (SQL LIKE, use ``%`` as
    wildcard), ``organization_id``, ``role_id``, ``rule_id``, ``last_seen_from``, ``last_seen_till``."""

    endpoint = "/user"
    kind = "user"

    def create(self, username: str, password: str, email: str, firstname: str = "", lastname: str = "",
               organization_id: Optional[IdLike] = None, roles: Optional[Iterable[IdLike]] = None,
               rules: Optional[Iterable[IdLike]] = None) -> Dict[str, Any]:
        """Create a user (in your own organization unless ``organization_id`` is given). ``roles`` and ``rules``
        are ids. The password must meet the server's policy; it is sent once and never printed."""
        body = _body(username=username, password=password, email=email, firstname=firstname, lastname=lastname,
                     organization_id=None if organization_id is None else _id(organization_id, "organization_id"),
                     roles=_ids(roles, "role"), rules=_ids(rules, "rule"))
        return self._create(body, repr(username))

    def update(self, id: IdLike, username: Optional[str] = None, firstname: Optional[str] = None,
               lastname: Optional[str] = None, email: Optional[str] = None,
               roles: Optional[Iterable[IdLike]] = None, rules: Optional[Iterable[IdLike]] = None,
               current_password: Optional[str] = None) -> Dict[str, Any]:
        """Change a user's fields; ``roles``/``rules`` replace the current lists. Changing your own ``email``
        needs your ``current_password`` (sent, never printed); only users themselves change their username.
        Passwords change only through :meth:`Client.change_password`."""
        return self._update(id, _body(username=username, firstname=firstname, lastname=lastname, email=email,
                                      roles=_ids(roles, "role"), rules=_ids(rules, "rule"),
                                      current_password=current_password))

    def delete(self, id: IdLike) -> Dict[str, Any]:
        """Delete a user."""
        return self._delete(id)


class OrganizationResource(_Resource):
    """Organizations. Filters of ``list``: ``name`` (LIKE), ``country``, ``collaboration_id``. The API has no
    delete for organizations."""

    endpoint = "/organization"
    kind = "organization"

    def create(self, name: str, address1: Optional[str] = None, address2: Optional[str] = None,
               zipcode: Optional[str] = None, country: Optional[str] = None, domain: Optional[str] = None,
               public_key: Optional[str] = None) -> Dict[str, Any]:
        """Create an organization. ``public_key`` is base64 of a PEM public key (normally the node uploads it)."""
        return self._create(_body(name=name, address1=address1, address2=address2, zipcode=zipcode,
                                  country=country, domain=domain, public_key=public_key), repr(name))

    def update(self, id: IdLike, name: Optional[str] = None, address1: Optional[str] = None,
               address2: Optional[str] = None, zipcode: Optional[str] = None, country: Optional[str] = None,
               domain: Optional[str] = None, public_key: Optional[str] = None) -> Dict[str, Any]:
        """Change an organization's fields (``None`` leaves a field as it is, ``""`` empties it)."""
        return self._update(id, _body(name=name, address1=address1, address2=address2, zipcode=zipcode,
                                      country=country, domain=domain, public_key=public_key))

    def collaborations(self, id: IdLike) -> List[Dict[str, Any]]:
        """The collaborations the organization is a member of."""
        return self._client.request_json("GET", f"/organization/{_id(id)}/collaboration")

    def nodes(self, id: IdLike) -> List[Dict[str, Any]]:
        """The organization's nodes (in all collaborations)."""
        return self._client.request_json("GET", f"/organization/{_id(id)}/node")


class CollaborationResource(_Resource):
    """Collaborations. Filters of ``list``: ``name`` (LIKE), ``encrypted``, ``organization_id``."""

    endpoint = "/collaboration"
    kind = "collaboration"

    def create(self, name: str, organization_ids: Iterable[IdLike], encrypted: bool = False) -> Dict[str, Any]:
        """Create a collaboration of the given organizations. ``encrypted=True`` makes its task input and
        results end-to-end encrypted."""
        return self._create({"name": name, "organization_ids": _ids(organization_ids, "organization_id"),
                             "encrypted": bool(encrypted)}, repr(name))

    def update(self, id: IdLike, name: Optional[str] = None, organization_ids: Optional[Iterable[IdLike]] = None,
               encrypted: Optional[bool] = None) -> Dict[str, Any]:
        """Change a collaboration; ``organization_ids`` replaces the member list."""
        return self._update(id, _body(name=name, organization_ids=_ids(organization_ids, "organization_id"),
                                      encrypted=None if encrypted is None else bool(encrypted)))

    def delete(self, id: IdLike) -> Dict[str, Any]:
        """Delete a collaboration (its nodes and tasks are kept)."""
        return self._delete(id)

    def organizations(self, id: IdLike, **paging: Any) -> "ResultList":
        """The member organizations (paginated like ``list``)."""
        return self._client.collect(f"/collaboration/{_id(id)}/organization", paging)

    def add_organization(self, id: IdLike, organization_id: IdLike) -> List[Dict[str, Any]]:
        """Add a member; returns the members."""
        self._client.log(f"Adding organization {_id(organization_id)} to collaboration {_id(id)}")
        return self._client.request_json("POST", f"/collaboration/{_id(id)}/organization",
                                         json={"id": _id(organization_id, "organization_id")})

    def remove_organization(self, id: IdLike, organization_id: IdLike) -> List[Dict[str, Any]]:
        """Remove a member; returns the remaining members."""
        self._client.log(f"Removing organization {_id(organization_id)} from collaboration {_id(id)}")
        return self._client.request_json("DELETE", f"/collaboration/{_id(id)}/organization",
                                         json={"id": _id(organization_id, "organization_id")})

    def nodes(self, id: IdLike, **paging: Any) -> "ResultList":
        """The collaboration's nodes (paginated like ``list``)."""
        return self._client.collect(f"/collaboration/{_id(id)}/node", paging)

    def add_node(self, id: IdLike, node_id: IdLike) -> List[Dict[str, Any]]:
        """Move a node into this collaboration; returns the collaboration's nodes."""
        self._client.log(f"Adding node {_id(node_id)} to collaboration {_id(id)}")
        return self._client.request_json("POST", f"/collaboration/{_id(id)}/node", json={"id": _id(node_id)})

    def remove_node(self, id: IdLike, node_id: IdLike) -> Dict[str, Any]:
        """Detach a node from this collaboration."""
        self._client.log(f"Removing node {_id(node_id)} from collaboration {_id(id)}")
        return self._client.request_json("DELETE", f"/collaboration/{_id(id)}/node", json={"id": _id(node_id)})

    def tasks(self, id: IdLike, **paging: Any) -> "ResultList":
        """The collaboration's tasks (paginated like ``list``)."""
        return self._client.collect(f"/collaboration/{_id(id)}/task", paging)


class NodeResource(_Resource):
    """Nodes. Filters of ``list``: ``organization_id``, ``collaboration_id``, ``status`` (``online`` /
    ``offline``), ``ip``, ``name`` (LIKE), ``last_seen_from``, ``last_seen_till``."""

    endpoint = "/node"
    kind = "node"

    def create(self, collaboration_id: IdLike, organization_id: Optional[IdLike] = None,
               name: Optional[str] = None) -> Dict[str, Any]:
        """Register a node of an organization (your own by default) in a collaboration. The answer contains the
        node's ``api_key``: this is the only time the server reveals it, store it in the node's configuration."""
        body = _body(collaboration_id=_id(collaboration_id, "collaboration_id"),
                     organization_id=None if organization_id is None else _id(organization_id, "organization_id"),
                     name=name)
        return self._create(body, f"in collaboration {body['collaboration_id']}")

    def update(self, id: IdLike, name: Optional[str] = None, organization_id: Optional[IdLike] = None,
               collaboration_id: Optional[IdLike] = None) -> Dict[str, Any]:
        """Rename a node or move it to another organization or collaboration."""
        return self._update(id, _body(
            name=name,
            organization_id=None if organization_id is None else _id(organization_id, "organization_id"),
            collaboration_id=None if collaboration_id is None else _id(collaboration_id, "collaboration_id")))

    def delete(self, id: IdLike) -> Dict[str, Any]:
        """Delete a node."""
        return self._delete(id)

    def tasks(self, id: IdLike, **paging: Any) -> "ResultList":
        """The tasks of the node's collaboration."""
        return self._client.collect(f"/node/{_id(id)}/task", paging)

    def reset_api_key(self, id: IdLike) -> str:
        """Give the node a new API key and return it (the old one stops working)."""
        self._client.log(f"Resetting the API key of node {_id(id)}")
        return self._client.request_json("POST", "/recover/node", json={"id": _id(id)})["api_key"]


class TaskResource(_Resource):
    """Tasks. Filters of ``list``: ``initiator_id``, ``collaboration_id``, ``parent_id``, ``run_id``,
    ``init_user_id``, ``name``, ``image``, ``description``, ``database`` (LIKE), ``status``, ``result_id``,
    ``include="results"``."""

    endpoint = "/task"
    kind = "task"

    def get(self, id: IdLike, include_results: bool = False) -> Dict[str, Any]:
        """One task; ``include_results=True`` embeds its results (still encrypted: use
        ``client.result.from_task`` to read them)."""
        params = {"include": "results"} if include_results else None
        return self._client.request_json("GET", f"/task/{_id(id)}", params=params)

    def create(self, collaboration: IdLike, organizations: Iterable[IdLike], name: str, image: str,
               description: str = "", input_: Any = None, database: str = "default",
               data_format: str = "json") -> Dict[str, Any]:
        """Post a task to ``organizations`` (ids) of ``collaboration`` (id).

        ``input_`` (normally ``{"method": ..., "args": [...], "kwargs": {...}}``) is written as ``json.`` + JSON;
        when it is a dictionary without ``output_format``, ``"output_format": "json"`` is added so that vantage6
        3.x algorithm images answer in JSON rather than a pickle (which this client never unpickles). It is then
        encrypted separately for each organization with the public key the server holds for it
        (``GET /organization/{id}``). In an unencrypted collaboration it is only base64-encoded.
        ``data_format`` ``"pickle"``/``"legacy"`` is refused (see docs/security.md).
        """
        client = self._client
        collaboration_id = _id(collaboration, "collaboration")
        org_ids = _ids(organizations, "organization")
        if not org_ids:
            raise ValueError("organizations must name at least one organization id")
        if isinstance(input_, dict) and "output_format" not in input_:
            input_ = {**input_, "output_format": "json"}
        payload = serialize(input_, data_format)
        collab = client.request_json("GET", f"/collaboration/{collaboration_id}")
        encrypted = bool(collab.get("encrypted"))
        cryptor = client._cryptor_for(encrypted, f"collaboration {collaboration_id}")
        entries = []
        for org_id in org_ids:
            if encrypted:
                client.log(f"Encrypting input for organization {org_id}")
                public_key = client.request_json("GET", f"/organization/{org_id}").get("public_key") or ""
                if not public_key.strip():
                    raise EncryptionSetupError(
                        f"organization {org_id} has no public key, so input for it cannot be encrypted; its node "
                        "uploads the key when it starts (or set it with client.organization.update(id, "
                        "public_key=...))")
                try:
                    text = cryptor.encrypt_bytes_to_str(payload, public_key)
                except EncryptionError as exc:
                    raise EncryptionSetupError(f"cannot encrypt input for organization {org_id}: {exc}") from None
            else:
                client.log(f"Encoding input for organization {org_id} (unencrypted collaboration)")
                text = cryptor.encrypt_bytes_to_str(payload, "")
            entries.append({"id": org_id, "input": text})
        client.log(f"Posting task {name!r} to collaboration {collaboration_id} for organization(s) "
                   f"{', '.join(str(o) for o in org_ids)}")
        task = client.request_json("POST", "/task", json={
            "collaboration_id": collaboration_id,
            "organizations": entries,
            "name": name,
            "description": description,
            "image": image,
            "database": database,
        })
        client.log(f"Task {task.get('id')} created")
        return task

    def delete(self, id: IdLike) -> Dict[str, Any]:
        """Delete a task and its results (a running task is killed first)."""
        return self._delete(id)

    def kill(self, id: IdLike) -> Dict[str, Any]:
        """Ask the nodes to stop the task's containers (``POST /kill/task``)."""
        self._client.log(f"Killing task {_id(id)}")
        return self._client.request_json("POST", "/kill/task", json={"id": _id(id)})


class ResultResource(_Resource):
    """Results (one per organization of a task). Filters of ``list``: ``task_id``, ``organization_id``,
    ``node_id``, ``state="open"``, ``assigned_from``/``_till``, ``started_from``/``_till``,
    ``finished_from``/``_till``, ``include="task"``. ``list`` returns the results as stored (encrypted); ``get``
    and ``from_task`` decrypt them."""

    endpoint = "/result"
    kind = "result"

    def _decode(self, item: Dict[str, Any]) -> Dict[str, Any]:
        if isinstance(item, dict) and item.get("result") is not None:
            item = dict(item)
            item["result"] = self._client.decrypt_payload(item["result"], f"result {item.get('id')}")
        return item

    def get(self, id: IdLike, include_task: bool = False, decrypt: bool = True) -> Dict[str, Any]:
        """One result. With ``decrypt`` (default) its ``result`` field is decrypted and read: a
        ``json.`` output gives its value, anything else (a pickle, an unknown format) the raw bytes with an
        ``UnsafePayloadWarning`` (nothing is unpickled); ``None`` while the run has not finished."""
        params = {"include": "task"} if include_task else None
        item = self._client.request_json("GET", f"/result/{_id(id)}", params=params)
        return self._decode(item) if decrypt else item

    def from_task(self, task_id: IdLike, decrypt: bool = True) -> List[Dict[str, Any]]:
        """All results of a task, each with ``result`` decrypted and read (see :meth:`get`)."""
        items = self._client.collect(f"/task/{_id(task_id, 'task_id')}/result")
        return [self._decode(i) for i in items] if decrypt else list(items)


class RoleResource(_Resource):
    """Roles. Filters of ``list``: ``organization_id`` (one or a list), ``include_root``, ``name``,
    ``description`` (LIKE), ``rule_id``, ``user_id``."""

    endpoint = "/role"
    kind = "role"

    def create(self, name: str, description: str = "", rules: Optional[Iterable[IdLike]] = None,
               organization_id: Optional[IdLike] = None) -> Dict[str, Any]:
        """Create a role of rules (ids) for an organization (your own by default). You can only hand out rules
        you have yourself."""
        body = _body(name=name, description=description, rules=_ids(rules, "rule") or [],
                     organization_id=None if organization_id is None else _id(organization_id, "organization_id"))
        return self._create(body, repr(name))

    def update(self, id: IdLike, name: Optional[str] = None, description: Optional[str] = None,
               rules: Optional[Iterable[IdLike]] = None) -> Dict[str, Any]:
        """Change a role; ``rules`` replaces its rules."""
        return self._update(id, _body(name=name, description=description, rules=_ids(rules, "rule")))

    def delete(self, id: IdLike) -> Dict[str, Any]:
        """Delete a role."""
        return self._delete(id)

    def rules(self, id: IdLike, **paging: Any) -> "ResultList":
        """The rules of a role."""
        return self._client.collect(f"/role/{_id(id)}/rule", paging)

    def add_rule(self, id: IdLike, rule_id: IdLike) -> Any:
        """Add one rule to a role."""
        self._client.log(f"Adding rule {_id(rule_id)} to role {_id(id)}")
        return self._client.request_json("POST", f"/role/{_id(id)}/rule/{_id(rule_id)}")

    def remove_rule(self, id: IdLike, rule_id: IdLike) -> Any:
        """Remove one rule from a role."""
        self._client.log(f"Removing rule {_id(rule_id)} from role {_id(id)}")
        return self._client.request_json("DELETE", f"/role/{_id(id)}/rule/{_id(rule_id)}")


class RuleResource(_Resource):
    """Rules (read only). Filters of ``list``: ``name`` (the resource, e.g. ``"user"``), ``operation``
    (``VIEW``, ``EDIT``, ``CREATE``, ``DELETE``), ``scope`` (``OWN``, ``ORGANIZATION``, ``COLLABORATION``,
    ``GLOBAL``), ``role_id``."""

    endpoint = "/rule"
    kind = "rule"

    def find(self, name: str, operation: str, scope: str) -> Dict[str, Any]:
        """The one rule for resource ``name``, ``operation`` and ``scope`` (e.g. ``"user", "VIEW", "GLOBAL"``)."""
        found = self.list(name=name, operation=operation.upper(), scope=scope.upper())
        if len(found) != 1:
            raise NotFound(f"no rule {name}/{operation.upper()}/{scope.upper()} on the server")
        return found[0]
