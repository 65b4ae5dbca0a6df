"""The resource sub-objects of :class:`federa_client.Client` (``client.user``, ``client.task``, ...).

Method names, parameter names, defaults and returned shapes are those of vantage6 3.x's ``UserClient``, so a
vantage6 script runs unchanged (docs/client-python.md lists every method):

* ``list(...)`` takes vantage6's filters (``organization=``, ``collaboration=``, ...), ``page=1``, ``per_page=20``
  and ``include_metadata=True``: it returns ``{"data": [...], "links": {...}}`` (one page), or the bare list with
  ``include_metadata=False``. ``filter_=(key, value)`` / ``filters=[(key, value), ...]`` keep the items whose
  ``key`` equals ``value``; ``field=`` / ``fields=`` keep only those keys. Any other keyword is passed to the API as
  a query filter (e.g. ``organization_id=``).
* ``get(id_, field=None, fields=None)`` returns one object as a dictionary.

Federa's additions carry names vantage6 does not use: ``list_all(**filters)`` collects every page into a list (a
:class:`~federa_client.ResultList` with ``total``); ``update``/``delete`` where vantage6 has none, ``find``, ...
In queries ``None`` values are left out, ``True`` is sent as ``true`` and lists become repeated parameters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from .exceptions import DecryptionError, EncryptionSetupError, NotFound
from .run_logs import follow_log

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


Pair = Tuple[Any, Any]


def _keep_fields(item: Any, field: Any = None, fields: Optional[Iterable[Any]] = None) -> Any:
    """vantage6's ``field``/``fields``: keep only those keys of a dictionary."""
    keys = [field] if field else (list(fields) if fields else None)
    if not keys or not isinstance(item, dict):
        return item
    return {k: item[k] for k in keys if k in item}


def _page_shape(body: Any, filter_: Optional[Pair] = None, filters: Optional[Iterable[Pair]] = None,
                field: Any = None, fields: Optional[Iterable[Any]] = None) -> Any:
    """Apply vantage6's ``filter_``/``filters`` (items whose key equals the value) and ``field``/``fields`` to a
    listing, whether it is a bare list or ``{"data": [...], "links": ...}``."""
    wrapped = isinstance(body, dict) and isinstance(body.get("data"), list)
    items = body["data"] if wrapped else (body if isinstance(body, list) else [])
    pairs = [filter_] if filter_ else (list(filters) if filters else [])
    if pairs:
        items = [i for i in items if isinstance(i, dict) and all(k in i and i[k] == v for k, v in pairs)]
    items = [_keep_fields(i, field, fields) for i in items]
    return {**body, "data": items} if wrapped else items


class _Resource:
    endpoint = ""
    kind = ""

    def __init__(self, client: "Client"):
        self._client = client

    # vantage6's listing: one page, {"data", "links"} unless include_metadata=False.
    def _page(self, endpoint: str, query: Dict[str, Any], page: Optional[int], per_page: Optional[int],
              include_metadata: bool, extra: Dict[str, Any], includes: Iterable[str] = (),
              filter_: Optional[Pair] = None, filters: Optional[Iterable[Pair]] = None, field: Any = None,
              fields: Optional[Iterable[Any]] = None) -> Any:
        params: Dict[str, Any] = {**query, **extra}
        include = [i for i in includes if i]
        if include_metadata:
            include.append("metadata")
        if include:
            params["include"] = include
        if page is not None:
            params["page"] = page
        if per_page is not None:
            params["per_page"] = per_page
        body = self._client.request_json("GET", endpoint, params=params)
        return _page_shape(body, filter_, filters, field, fields)

    def list_all(self, **filters: Any) -> "ResultList":
        """Federa: every item matching the API's query filters (e.g. ``organization_id=3``), all pages collected
        into one list with ``total``; with ``page=`` (and ``per_page=``) only that page."""
        return self._client.collect(self.endpoint, filters)

    def get(self, id_: IdLike, field: Any = None, fields: Optional[Iterable[Any]] = None) -> Dict[str, Any]:
        """One item by id. Raises :class:`~federa_client.exceptions.NotFound` when it does not exist."""
        return _keep_fields(self._client.request_json("GET", f"{self.endpoint}/{_id(id_)}"), field, fields)

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
    """Users. ``list`` filters: ``username``, ``organization``, ``firstname``, ``lastname``, ``email`` (SQL LIKE,
    ``%`` as wildcard), ``role``, ``rule``, ``last_seen_from``, ``last_seen_till``."""

    endpoint = "/user"
    kind = "user"

    def list(self, username: Optional[str] = None, organization: Optional[IdLike] = None,
             firstname: Optional[str] = None, lastname: Optional[str] = None, email: Optional[str] = None,
             role: Optional[IdLike] = None, rule: Optional[IdLike] = None, last_seen_from: Optional[str] = None,
             last_seen_till: Optional[str] = None, page: Optional[int] = 1, per_page: Optional[int] = 20,
             include_metadata: bool = True, filter_: Optional[Pair] = None, filters: Optional[Iterable[Pair]] = None,
             field: Any = None, fields: Optional[Iterable[Any]] = None, **extra: Any) -> Any:
        """One page of users (vantage6 3.x's ``user.list``)."""
        query = {"username": username, "organization_id": _opt_id(organization), "firstname": firstname,
                 "lastname": lastname, "email": email, "role_id": _opt_id(role), "rule_id": _opt_id(rule),
                 "last_seen_from": last_seen_from, "last_seen_till": last_seen_till}
        return self._page(self.endpoint, query, page, per_page, include_metadata, extra, (), filter_, filters, field,
                          fields)

    def get(self, id_: Optional[IdLike] = None, field: Any = None,
            fields: Optional[Iterable[Any]] = None) -> Dict[str, Any]:
        """One user; without ``id_`` the logged-in user."""
        return super().get(self._client._whoami_id() if id_ is None else id_, field, fields)

    def create(self, username: str, firstname: str = "", lastname: str = "", password: Optional[str] = None,
               email: Optional[str] = None, organization: Optional[IdLike] = None,
               roles: Optional[Iterable[IdLike]] = None, rules: Optional[Iterable[IdLike]] = None, *,
               organization_id: Optional[IdLike] = None, field: Any = None,
               fields: Optional[Iterable[Any]] = None) -> Dict[str, Any]:
        """Create a user (in your own organization unless ``organization`` is given); ``roles`` and ``rules`` are
        ids. The password must meet the server's policy; it is sent once and never printed.
        ``organization_id`` is Federa's earlier name of ``organization``."""
        org = organization if organization is not None else organization_id
        body = _body(username=username, password=password, email=email, firstname=firstname, lastname=lastname,
                     organization_id=_opt_id(org, "organization"), roles=_ids(roles, "role") or [],
                     rules=_ids(rules, "rule") or [])
        return _keep_fields(self._create(body, repr(username)), field, fields)

    def update(self, id_: Optional[IdLike] = None, firstname: Optional[str] = None, lastname: Optional[str] = None,
               organization: Optional[IdLike] = None, rules: Optional[Iterable[IdLike]] = None,
               roles: Optional[Iterable[IdLike]] = None, email: Optional[str] = None, *,
               username: Optional[str] = None, current_password: Optional[str] = None, field: Any = None,
               fields: Optional[Iterable[Any]] = None) -> Dict[str, Any]:
        """Change a user (the logged-in user without ``id_``); ``roles``/``rules`` replace the current lists.
        Federa's additions: ``username`` (only users themselves change their username) and ``current_password``
        (changing your own ``email`` needs it; sent, never printed). Passwords change only through
        ``util.change_my_password``."""
        target = self._client._whoami_id() if id_ is None else id_
        return _keep_fields(self._update(target, _body(
            username=username, firstname=firstname, lastname=lastname, email=email,
            organization_id=_opt_id(organization, "organization"), roles=_ids(roles, "role"),
            rules=_ids(rules, "rule"), current_password=current_password)), field, fields)

    def delete(self, id_: IdLike) -> Dict[str, Any]:
        """Federa: delete a user."""
        return self._delete(id_)


class OrganizationResource(_Resource):
    """Organizations. ``list`` filters: ``name`` (LIKE), ``country``, ``collaboration``. The API has no delete for
    organizations."""

    endpoint = "/organization"
    kind = "organization"

    def list(self, name: Optional[str] = None, country: Optional[str] = None,
             collaboration: Optional[IdLike] = None, page: Optional[int] = None, per_page: Optional[int] = None,
             include_metadata: bool = True, filter_: Optional[Pair] = None, filters: Optional[Iterable[Pair]] = None,
             field: Any = None, fields: Optional[Iterable[Any]] = None, **extra: Any) -> Any:
        """Organizations (vantage6 3.x's ``organization.list``: every item unless ``page`` is given)."""
        query = {"name": name, "country": country, "collaboration_id": _opt_id(collaboration)}
        return self._page(self.endpoint, query, page, per_page, include_metadata, extra, (), filter_, filters, field,
                          fields)

    def get(self, id_: Optional[IdLike] = None, field: Any = None,
            fields: Optional[Iterable[Any]] = None) -> Dict[str, Any]:
        """One organization; without ``id_`` the logged-in user's organization."""
        return super().get(self._client._whoami_org() if id_ is None else id_, field, fields)

    def create(self, name: str, address1: Optional[str] = None, address2: Optional[str] = None,
               zipcode: Optional[str] = None, country: Optional[str] = None, domain: Optional[str] = None,
               public_key: Optional[str] = None, field: Any = None,
               fields: Optional[Iterable[Any]] = None) -> Dict[str, Any]:
        """Create an organization. ``public_key`` is base64 of a PEM public key (normally the node uploads it)."""
        return _keep_fields(self._create(_body(name=name, address1=address1, address2=address2, zipcode=zipcode,
                                               country=country, domain=domain, public_key=public_key), repr(name)),
                            field, fields)

    def update(self, id_: Optional[IdLike] = None, name: Optional[str] = None, address1: Optional[str] = None,
               address2: Optional[str] = None, zipcode: Optional[str] = None, country: Optional[str] = None,
               domain: Optional[str] = None, public_key: Optional[str] = None, field: Any = None,
               fields: Optional[Iterable[Any]] = None) -> Dict[str, Any]:
        """Change an organization (your own without ``id_``); ``None`` leaves a field as it is, ``""`` empties
        it."""
        target = self._client._whoami_org() if id_ is None else id_
        return _keep_fields(self._update(target, _body(name=name, address1=address1, address2=address2,
                                                       zipcode=zipcode, country=country, domain=domain,
                                                       public_key=public_key)), field, fields)

    def collaborations(self, id_: IdLike) -> List[Dict[str, Any]]:
        """Federa: the collaborations the organization is a member of."""
        return self._client.request_json("GET", f"/organization/{_id(id_)}/collaboration")

    def nodes(self, id_: IdLike) -> List[Dict[str, Any]]:
        """Federa: the organization's nodes (in all collaborations)."""
        return self._client.request_json("GET", f"/organization/{_id(id_)}/node")


class CollaborationResource(_Resource):
    """Collaborations. ``list`` filters: ``name`` (LIKE), ``encrypted``, ``organization``."""

    endpoint = "/collaboration"
    kind = "collaboration"

    def list(self, scope: str = "organization", name: Optional[str] = None, encrypted: Optional[bool] = None,
             organization: Optional[IdLike] = None, page: Optional[int] = 1, per_page: Optional[int] = 20,
             include_metadata: bool = True, filter_: Optional[Pair] = None, filters: Optional[Iterable[Pair]] = None,
             field: Any = None, fields: Optional[Iterable[Any]] = None, **extra: Any) -> Any:
        """vantage6 3.x's ``collaboration.list``. ``scope="organization"`` (default): the collaborations of your
        organization, as a bare list (that endpoint has no pagination or filters). ``scope="global"``: every
        collaboration you may see, one page with the filters."""
        if scope == "organization":
            body = self._client.request_json("GET", f"/organization/{self._client._whoami_org()}/collaboration")
            return _page_shape(body, filter_, filters, field, fields)
        if scope != "global":
            raise ValueError(f"scope must be 'organization' or 'global', not {scope!r}")
        query = {"name": name, "encrypted": encrypted, "organization_id": _opt_id(organization)}
        return self._page(self.endpoint, query, page, per_page, include_metadata, extra, (), filter_, filters, field,
                          fields)

    def create(self, name: str, organizations: Optional[Iterable[IdLike]] = None, encrypted: bool = False, *,
               organization_ids: Optional[Iterable[IdLike]] = None, field: Any = None,
               fields: Optional[Iterable[Any]] = None) -> Dict[str, Any]:
        """Create a collaboration of ``organizations`` (ids). ``encrypted=True`` makes its task input and
        results end-to-end encrypted. ``organization_ids`` is Federa's earlier name of ``organizations``."""
        members = organizations if organizations is not None else organization_ids
        return _keep_fields(self._create({"name": name, "organization_ids": _ids(members, "organization") or [],
                                          "encrypted": bool(encrypted)}, repr(name)), field, fields)

    def update(self, id_: IdLike, name: Optional[str] = None, organizations: Optional[Iterable[IdLike]] = None,
               encrypted: Optional[bool] = None) -> Dict[str, Any]:
        """Federa: change a collaboration; ``organizations`` replaces the member list."""
        return self._update(id_, _body(name=name, organization_ids=_ids(organizations, "organization"),
                                       encrypted=None if encrypted is None else bool(encrypted)))

    def delete(self, id_: IdLike) -> Dict[str, Any]:
        """Federa: delete a collaboration (its nodes and tasks are kept)."""
        return self._delete(id_)

    def organizations(self, id_: IdLike, **paging: Any) -> "ResultList":
        """Federa: the member organizations (every page, or ``page=``)."""
        return self._client.collect(f"/collaboration/{_id(id_)}/organization", paging)

    def add_organization(self, id_: IdLike, organization: IdLike) -> List[Dict[str, Any]]:
        """Federa: add a member; returns the members."""
        self._client.log(f"Adding organization {_id(organization)} to collaboration {_id(id_)}")
        return self._client.request_json("POST", f"/collaboration/{_id(id_)}/organization",
                                         json={"id": _id(organization, "organization")})

    def remove_organization(self, id_: IdLike, organization: IdLike) -> List[Dict[str, Any]]:
        """Federa: remove a member; returns the remaining members."""
        self._client.log(f"Removing organization {_id(organization)} from collaboration {_id(id_)}")
        return self._client.request_json("DELETE", f"/collaboration/{_id(id_)}/organization",
                                         json={"id": _id(organization, "organization")})

    def nodes(self, id_: IdLike, **paging: Any) -> "ResultList":
        """Federa: the collaboration's nodes (every page, or ``page=``)."""
        return self._client.collect(f"/collaboration/{_id(id_)}/node", paging)

    def add_node(self, id_: IdLike, node: IdLike) -> List[Dict[str, Any]]:
        """Federa: move a node into this collaboration; returns the collaboration's nodes."""
        self._client.log(f"Adding node {_id(node)} to collaboration {_id(id_)}")
        return self._client.request_json("POST", f"/collaboration/{_id(id_)}/node", json={"id": _id(node)})

    def remove_node(self, id_: IdLike, node: IdLike) -> Dict[str, Any]:
        """Federa: detach a node from this collaboration."""
        self._client.log(f"Removing node {_id(node)} from collaboration {_id(id_)}")
        return self._client.request_json("DELETE", f"/collaboration/{_id(id_)}/node", json={"id": _id(node)})

    def tasks(self, id_: IdLike, **paging: Any) -> "ResultList":
        """Federa: the collaboration's tasks (every page, or ``page=``)."""
        return self._client.collect(f"/collaboration/{_id(id_)}/task", paging)


class NodeResource(_Resource):
    """Nodes. ``list`` filters: ``name`` (LIKE), ``organization``, ``collaboration``, ``is_online``, ``ip``,
    ``last_seen_from``, ``last_seen_till``."""

    endpoint = "/node"
    kind = "node"

    def list(self, name: Optional[str] = None, organization: Optional[IdLike] = None,
             collaboration: Optional[IdLike] = None, is_online: Optional[bool] = None, ip: Optional[str] = None,
             last_seen_from: Optional[str] = None, last_seen_till: Optional[str] = None, page: Optional[int] = 1,
             per_page: Optional[int] = 20, include_metadata: bool = True, filter_: Optional[Pair] = None,
             filters: Optional[Iterable[Pair]] = None, field: Any = None, fields: Optional[Iterable[Any]] = None,
             **extra: Any) -> Any:
        """One page of nodes (vantage6 3.x's ``node.list``)."""
        query = {"name": name, "organization_id": _opt_id(organization), "collaboration_id": _opt_id(collaboration),
                 "ip": ip, "last_seen_from": last_seen_from, "last_seen_till": last_seen_till,
                 "status": None if is_online is None else ("online" if is_online else "offline")}
        return self._page(self.endpoint, query, page, per_page, include_metadata, extra, (), filter_, filters, field,
                          fields)

    def create(self, collaboration: IdLike, organization: Optional[IdLike] = None, name: Optional[str] = None, *,
               organization_id: Optional[IdLike] = None, field: Any = None,
               fields: Optional[Iterable[Any]] = None) -> Dict[str, Any]:
        """Register a node of an organization (your own by default) in a collaboration. The answer contains the
        node's ``api_key``: this is the only time the server reveals it, store it in the node's configuration.
        ``organization_id`` is Federa's earlier name of ``organization``."""
        org = organization if organization is not None else organization_id
        body = _body(collaboration_id=_id(collaboration, "collaboration"),
                     organization_id=_opt_id(org, "organization"), name=name)
        return _keep_fields(self._create(body, f"in collaboration {body['collaboration_id']}"), field, fields)

    def update(self, id_: IdLike, name: Optional[str] = None, organization: Optional[IdLike] = None,
               collaboration: Optional[IdLike] = None, field: Any = None,
               fields: Optional[Iterable[Any]] = None) -> Dict[str, Any]:
        """Rename a node or move it to another organization or collaboration."""
        return _keep_fields(self._update(id_, _body(name=name, organization_id=_opt_id(organization, "organization"),
                                                    collaboration_id=_opt_id(collaboration, "collaboration"))),
                            field, fields)

    def delete(self, id_: IdLike) -> Dict[str, Any]:
        """Delete a node."""
        return self._delete(id_)

    def kill_tasks(self, id_: IdLike) -> Dict[str, Any]:
        """Ask a node to stop all the task containers it runs (``POST /kill/node/tasks``)."""
        self._client.log(f"Killing the tasks of node {_id(id_)}")
        return self._client.request_json("POST", "/kill/node/tasks", json={"id": _id(id_)})

    def tasks(self, id_: IdLike, **paging: Any) -> "ResultList":
        """Federa: the tasks of the node's collaboration (every page, or ``page=``)."""
        return self._client.collect(f"/node/{_id(id_)}/task", paging)

    def reset_api_key(self, id_: IdLike) -> str:
        """Federa: give the node a new API key and return it (the old one stops working)."""
        self._client.log(f"Resetting the API key of node {_id(id_)}")
        return self._client.request_json("POST", "/recover/node", json={"id": _id(id_)})["api_key"]


class TaskResource(_Resource):
    """Tasks. ``list`` filters: ``initiator``, ``initiating_user``, ``collaboration``, ``image``, ``parent``,
    ``run``, ``name``, ``include_results``, ``description``, ``database`` (LIKE), ``result``, ``status``."""

    endpoint = "/task"
    kind = "task"

    def list(self, initiator: Optional[IdLike] = None, initiating_user: Optional[IdLike] = None,
             collaboration: Optional[IdLike] = None, image: Optional[str] = None, parent: Optional[IdLike] = None,
             run: Optional[int] = None, name: Optional[str] = None, include_results: bool = False,
             description: Optional[str] = None, database: Optional[str] = None, result: Optional[IdLike] = None,
             status: Optional[str] = None, page: Optional[int] = 1, per_page: Optional[int] = 20,
             include_metadata: bool = True, filter_: Optional[Pair] = None, filters: Optional[Iterable[Pair]] = None,
             field: Any = None, fields: Optional[Iterable[Any]] = None, **extra: Any) -> Any:
        """One page of tasks (vantage6 3.x's ``task.list``)."""
        query = {"initiator_id": _opt_id(initiator), "init_user_id": _opt_id(initiating_user),
                 "collaboration_id": _opt_id(collaboration), "image": image, "parent_id": _opt_id(parent),
                 "run_id": run, "name": name, "description": description, "database": database,
                 "result_id": _opt_id(result), "status": status}
        return self._page(self.endpoint, query, page, per_page, include_metadata, extra,
                          ("results",) if include_results else (), filter_, filters, field, fields)

    def get(self, id_: IdLike, include_results: bool = False, field: Any = None,
            fields: Optional[Iterable[Any]] = None) -> Dict[str, Any]:
        """One task; ``include_results=True`` embeds its results (still encrypted: use ``result.from_task`` to
        read them)."""
        params = {"include": "results"} if include_results else None
        return _keep_fields(self._client.request_json("GET", f"/task/{_id(id_)}", params=params), field, fields)

    def create(self, collaboration: IdLike, organizations: Iterable[IdLike], name: str, image: str,
               description: str = "", input: Any = None, data_format: str = "json", database: str = "default", *,
               input_: Any = None, field: Any = None, fields: Optional[Iterable[Any]] = None,
               cancel_on_failure: bool = False) -> Dict[str, Any]:
        """Post a task to ``organizations`` (ids) of ``collaboration`` (id).

        With ``cancel_on_failure=True`` (Federa), when one run of the task fails, its runs still pending are
        cancelled (docs/run-statuses.md).

        ``input`` (normally ``{"method": ..., "args": [...], "kwargs": {...}}``; ``input_`` is Federa's earlier
        name) is written as ``json.`` + JSON; when it is a dictionary without ``output_format``,
        ``"output_format": "json"`` is added so that vantage6 3.x algorithm images answer in JSON rather than a
        pickle (which this client never unpickles). It is then encrypted separately for each organization with
        the public key the server holds for it (``GET /organization/{id}``). In an unencrypted collaboration it is
        only base64-encoded. ``data_format`` ``"pickle"``/``"legacy"`` is refused (see docs/security.md).
        """
        if input is None:
            input = input_
        task = self._client._post_task(name, image, collaboration, input, description, organizations, data_format,
                                       database, cancel_on_failure)
        return _keep_fields(task, field, fields)

    def delete(self, id_: IdLike) -> Dict[str, Any]:
        """Delete a task and its results (a running task is killed first)."""
        return self._delete(id_)

    def kill(self, id_: IdLike) -> Dict[str, Any]:
        """Kill the task and its sub-tasks at every depth (``POST /kill/task``): their open runs end ``killed by user``
        and the nodes stop them. Whoever may post a task may kill it (a Researcher: their organization's tasks)."""
        self._client.log(f"Killing task {_id(id_)}")
        return self._client.request_json("POST", "/kill/task", json={"id": _id(id_)})


class ResultResource(_Resource):
    """Results (one per organization of a task). ``list`` filters: ``task``, ``organization``, ``state``
    (``"open"``), ``node``, ``include_task``, ``started``/``assigned``/``finished`` (``(from, till)`` dates),
    ``port``. ``get``, ``list`` and ``from_task`` decrypt and read each ``result``; ``list_all`` returns them as
    stored."""

    endpoint = "/result"
    kind = "result"

    def _decode(self, item: Dict[str, Any]) -> Dict[str, Any]:
        if isinstance(item, dict) and item.get("result") is not None:
            item = dict(item)
            item["result"] = self._client.decrypt_payload(item["result"], f"result {item.get('id')}")
        return item

    def _decode_lenient(self, item: Dict[str, Any]) -> Dict[str, Any]:
        try:
            return self._decode(item)
        except (DecryptionError, EncryptionSetupError) as exc:
            return {**item, "decryption_error": str(exc)}

    def list(self, task: Optional[IdLike] = None, organization: Optional[IdLike] = None,
             state: Optional[str] = None, node: Optional[IdLike] = None, include_task: bool = False,
             started: Optional[Tuple[str, str]] = None, assigned: Optional[Tuple[str, str]] = None,
             finished: Optional[Tuple[str, str]] = None, port: Optional[int] = None, page: Optional[int] = None,
             per_page: Optional[int] = None, include_metadata: bool = True, filter_: Optional[Pair] = None,
             filters: Optional[Iterable[Pair]] = None, field: Any = None, fields: Optional[Iterable[Any]] = None,
             **extra: Any) -> Any:
        """Results with ``result`` decrypted and read (vantage6 3.x's ``result.list``: every item unless ``page``
        is given). A result that cannot be decrypted keeps its stored string and gets ``decryption_error``."""
        s_from, s_till = started if started else (None, None)
        a_from, a_till = assigned if assigned else (None, None)
        f_from, f_till = finished if finished else (None, None)
        query = {"task_id": _opt_id(task), "organization_id": _opt_id(organization), "state": state,
                 "node_id": _opt_id(node), "started_from": s_from, "started_till": s_till, "assigned_from": a_from,
                 "assigned_till": a_till, "finished_from": f_from, "finished_till": f_till, "port": port}
        body = self._page(self.endpoint, query, page, per_page, include_metadata, extra,
                          ("task",) if include_task else (), filter_, filters)
        if isinstance(body, dict):
            body = {**body, "data": [_keep_fields(self._decode_lenient(i), field, fields) for i in body["data"]]}
            return body
        return [_keep_fields(self._decode_lenient(i), field, fields) for i in body]

    def get(self, id_: IdLike, include_task: bool = False, decrypt: bool = True, field: Any = None,
            fields: Optional[Iterable[Any]] = None) -> Dict[str, Any]:
        """One result. With ``decrypt`` (default) its ``result`` field is decrypted and read: a ``json.`` output
        gives its value, anything else (a pickle, an unknown format) the raw bytes with an
        ``UnsafePayloadWarning`` (nothing is unpickled); ``None`` while the run has not finished."""
        params = {"include": "task"} if include_task else None
        item = self._client.request_json("GET", f"/result/{_id(id_)}", params=params)
        return _keep_fields(self._decode(item) if decrypt else item, field, fields)

    def logs(self, id_: IdLike, follow: bool = False, interval: float = 1.0) -> Union[str, Iterator[str]]:
        """Federa: the run's log (docs/run-logs.md). Without ``follow``, the log as it is now (``""`` when empty).
        With ``follow=True``, an iterator of the new pieces as the run prints them, ending when the run has
        finished (the run is read every ``interval`` seconds)::

            for piece in client.result.logs(run_id, follow=True):
                print(piece, end="")
        """
        path = f"/result/{_id(id_)}"
        if not follow:
            return self._client.request_json("GET", path).get("log") or ""
        return follow_log(lambda: self._client.request_json("GET", path), interval)

    def from_task(self, task_id: IdLike, include_task: bool = False, decrypt: bool = True) -> List[Dict[str, Any]]:
        """All results of a task, each with ``result`` decrypted and read (see :meth:`get`)."""
        if include_task:
            items = self._client.collect("/result", {"task_id": _id(task_id, "task_id"), "include": "task"})
        else:
            items = self._client.collect(f"/task/{_id(task_id, 'task_id')}/result")
        return [self._decode(i) for i in items] if decrypt else list(items)


class RoleResource(_Resource):
    """Roles. ``list`` filters: ``name``, ``description`` (LIKE), ``organization``, ``rule``, ``user``,
    ``include_root``."""

    endpoint = "/role"
    kind = "role"

    def list(self, name: Optional[str] = None, description: Optional[str] = None,
             organization: Optional[IdLike] = None, rule: Optional[IdLike] = None, user: Optional[IdLike] = None,
             include_root: Optional[bool] = None, page: Optional[int] = 1, per_page: Optional[int] = 20,
             include_metadata: bool = True, filter_: Optional[Pair] = None, filters: Optional[Iterable[Pair]] = None,
             field: Any = None, fields: Optional[Iterable[Any]] = None, **extra: Any) -> Any:
        """One page of roles (vantage6 3.x's ``role.list``)."""
        query = {"name": name, "description": description, "organization_id": _opt_id(organization),
                 "rule_id": _opt_id(rule), "user_id": _opt_id(user), "include_root": include_root}
        return self._page(self.endpoint, query, page, per_page, include_metadata, extra, (), filter_, filters, field,
                          fields)

    def create(self, name: str, description: str = "", rules: Optional[Iterable[IdLike]] = None,
               organization: Optional[IdLike] = None, *, organization_id: Optional[IdLike] = None, field: Any = None,
               fields: Optional[Iterable[Any]] = None) -> Dict[str, Any]:
        """Create a role of rules (ids) for an organization (your own by default). You can only hand out rules
        you have yourself. ``organization_id`` is Federa's earlier name of ``organization``."""
        org = organization if organization is not None else organization_id
        body = _body(name=name, description=description, rules=_ids(rules, "rule") or [],
                     organization_id=_opt_id(org, "organization"))
        return _keep_fields(self._create(body, repr(name)), field, fields)

    def update(self, role: IdLike, name: Optional[str] = None, description: Optional[str] = None,
               rules: Optional[Iterable[IdLike]] = None, field: Any = None,
               fields: Optional[Iterable[Any]] = None) -> Dict[str, Any]:
        """Change a role; ``rules`` replaces its rules."""
        return _keep_fields(self._update(role, _body(name=name, description=description,
                                                     rules=_ids(rules, "rule"))), field, fields)

    def delete(self, role: IdLike) -> Dict[str, Any]:
        """Delete a role."""
        return self._delete(role)

    def rules(self, id_: IdLike, **paging: Any) -> "ResultList":
        """Federa: the rules of a role (every page, or ``page=``)."""
        return self._client.collect(f"/role/{_id(id_)}/rule", paging)

    def add_rule(self, id_: IdLike, rule: IdLike) -> Any:
        """Federa: add one rule to a role."""
        self._client.log(f"Adding rule {_id(rule)} to role {_id(id_)}")
        return self._client.request_json("POST", f"/role/{_id(id_)}/rule/{_id(rule)}")

    def remove_rule(self, id_: IdLike, rule: IdLike) -> Any:
        """Federa: remove one rule from a role."""
        self._client.log(f"Removing rule {_id(rule)} from role {_id(id_)}")
        return self._client.request_json("DELETE", f"/role/{_id(id_)}/rule/{_id(rule)}")


class RuleResource(_Resource):
    """Rules (read only). ``list`` filters: ``name`` (the resource, e.g. ``"user"``), ``operation`` (``view``,
    ``edit``, ``create``, ``delete``), ``scope`` (``own``, ``organization``, ``collaboration``, ``global``),
    ``role``."""

    endpoint = "/rule"
    kind = "rule"

    def list(self, name: Optional[str] = None, operation: Optional[str] = None, scope: Optional[str] = None,
             role: Optional[IdLike] = None, page: Optional[int] = 1, per_page: Optional[int] = 20,
             include_metadata: bool = True, filter_: Optional[Pair] = None, filters: Optional[Iterable[Pair]] = None,
             field: Any = None, fields: Optional[Iterable[Any]] = None, **extra: Any) -> Any:
        """One page of rules (vantage6 3.x's ``rule.list``)."""
        query = {"name": name, "operation": operation, "scope": scope, "role_id": _opt_id(role)}
        return self._page(self.endpoint, query, page, per_page, include_metadata, extra, (), filter_, filters, field,
                          fields)

    def find(self, name: str, operation: str, scope: str) -> Dict[str, Any]:
        """Federa: the one rule for resource ``name``, ``operation`` and ``scope`` (e.g. ``"user", "view",
        "global"``, any case)."""
        found = self.list_all(name=name, operation=operation.upper(), scope=scope.upper())
        if len(found) != 1:
            raise NotFound(f"no rule {name}/{operation.upper()}/{scope.upper()} on the server")
        return found[0]


def _opt_id(value: Optional[IdLike], what: str = "id") -> Optional[int]:
    return None if value is None else _id(value, what)

