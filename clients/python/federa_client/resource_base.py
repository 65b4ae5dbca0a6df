"""The shared ground of the resource sub-objects (see :mod:`federa_client.resources`): id coercion, request
bodies, vantage6's ``filter_``/``field`` shaping of listings, and the :class:`_Resource` base class."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Tuple, Union

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client, ResultList

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


def _opt_id(value: Optional[IdLike], what: str = "id") -> Optional[int]:
    return None if value is None else _id(value, what)


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
