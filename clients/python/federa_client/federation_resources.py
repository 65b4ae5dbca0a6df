"""Organizations, collaborations and nodes: the federation itself (``client.organization``,
``client.collaboration``, ``client.node``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional

from .resource_base import IdLike, Pair, _body, _id, _ids, _keep_fields, _opt_id, _page_shape, _Resource

if TYPE_CHECKING:  # pragma: no cover
    from .client import ResultList

__all__ = ["OrganizationResource", "CollaborationResource", "NodeResource"]


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
