"""Users, roles and rules: who may do what (``client.user``, ``client.role``, ``client.rule``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterable, Optional

from .exceptions import NotFound
from .resource_base import IdLike, Pair, _body, _id, _ids, _keep_fields, _opt_id, _Resource

if TYPE_CHECKING:  # pragma: no cover
    from .client import ResultList

__all__ = ["UserResource", "RoleResource", "RuleResource"]


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
