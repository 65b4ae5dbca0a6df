"""``client.store``: the algorithm store inside the server (docs/store.md), at ``<host>:<port>/store/api``.

A researcher lists and searches approved algorithms, reads one with its functions (their arguments, databases and
declared outputs), and creates a task from an algorithm, a function and its arguments: the task runs the approved
image at its digest, and the server checks the arguments against the function. A reviewer finds their open reviews
and approves or rejects them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional

from .exceptions import FederaError
from .resource_base import IdLike, _body, _id

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client


class StoreResource:
    """The store's algorithms and reviews. ``path``: where the store answers on the server's host and port."""

    def __init__(self, client: "Client", path: str = "/store/api"):
        self._client = client
        self.path = "/" + path.strip("/")

    def _call(self, method: str, endpoint: str, *, params: Optional[Dict[str, Any]] = None,
              json: Any = None) -> Any:
        base = f"{self._client.host}:{self._client.port}{self.path}"
        response = self._client.api_request(method, endpoint, params=params, json=json, base=base)
        return response.json() if response.content else None

    def list(self, search: Optional[str] = None, name: Optional[str] = None,
             partitioning: Optional[str] = None, status: Optional[str] = None, image: Optional[str] = None,
             page: Optional[int] = None, per_page: Optional[int] = None) -> List[Dict[str, Any]]:
        """One page of algorithms, newest first: approved ones unless ``status`` says otherwise (``"all"`` for
        reviewers). ``search``: words that must each be in the name, display name or description."""
        body = self._call("GET", "/algorithm", params=_body(
            search=search, name=name, partitioning=partitioning, status=status, image=image, page=page,
            per_page=per_page))
        return list(body.get("data") or []) if isinstance(body, dict) else []

    def get(self, id_: IdLike) -> Dict[str, Any]:
        """One algorithm with its functions. Raises :class:`~federa_client.exceptions.NotFound` when it does not
        exist."""
        return self._call("GET", f"/algorithm/{_id(id_, 'algorithm id')}")

    def functions(self, id_: IdLike) -> List[Dict[str, Any]]:
        """The functions of an algorithm: name, type (``central`` or ``federated``), arguments, databases."""
        return list(self.get(id_).get("functions") or [])

    def submit(self, description: Dict[str, Any]) -> Dict[str, Any]:
        """Submit an author's description (the JSON kept for vantage6's store, loaded as it is)."""
        self._client.log(f"Submitting algorithm {description.get('name')!r} to the store")
        return self._call("POST", "/algorithm", json=description)

    def me(self) -> Dict[str, Any]:
        """Who the store takes the caller for, with their store roles."""
        return self._call("GET", "/user/me")

    def reviews(self, algorithm: Optional[IdLike] = None, reviewer: Optional[IdLike] = None,
                status: Optional[str] = None) -> List[Dict[str, Any]]:
        """Reviews the caller may see, e.g. ``reviews(reviewer=client.store.me(), status="under review")``."""
        body = self._call("GET", "/review", params=_body(
            algorithm_id=None if algorithm is None else _id(algorithm, "algorithm id"),
            reviewer_id=None if reviewer is None else _id(reviewer, "reviewer id"), status=status))
        return list(body.get("data") or []) if isinstance(body, dict) else []

    def assign_reviewer(self, algorithm: IdLike, reviewer: IdLike) -> Dict[str, Any]:
        """Assign a store user to review an algorithm (store managers)."""
        return self._call("POST", "/review", json={"algorithm_id": _id(algorithm, "algorithm id"),
                                                   "reviewer_id": _id(reviewer, "reviewer id")})

    def approve(self, review: IdLike, comment: Optional[str] = None) -> Dict[str, Any]:
        return self._call("POST", f"/review/{_id(review, 'review id')}/approve", json=_body(comment=comment))

    def reject(self, review: IdLike, comment: str) -> Dict[str, Any]:
        return self._call("POST", f"/review/{_id(review, 'review id')}/reject", json={"comment": comment})

    def create_task(self, algorithm: IdLike, function: str, arguments: Optional[Dict[str, Any]],
                    collaboration: IdLike, organizations: Iterable[IdLike], name: Optional[str] = None,
                    description: str = "", database: str = "default") -> Dict[str, Any]:
        """Create a task from an approved algorithm, one of its functions and its keyword arguments. The task runs
        the approved image at its digest; the server checks the arguments against the function and answers a
        wrong one with :class:`~federa_client.exceptions.ValidationError` naming it. A central function's input is sent
        as master, which its wrapper needs to call the central entry point."""
        found = self.get(algorithm)
        if found.get("status") != "approved" or not found.get("digest"):
            raise FederaError(f"store algorithm {found.get('id')} is {found.get('status')}, not approved: it cannot "
                              "run")
        fn = next((f for f in found.get("functions") or [] if f.get("name") == function), None)
        if fn is None:
            names = ", ".join(str(f.get("name")) for f in found.get("functions") or [])
            raise FederaError(f"store algorithm {found.get('id')} has no function {function!r}; its functions: "
                              f"{names}")
        input_ = {"method": function, "master": fn.get("type") == "central", "args": [],
                  "kwargs": dict(arguments or {})}
        return self._client._post_task(
            name or fn.get("display_name") or function, f"{found['image']}@{found['digest']}", collaboration,
            input_, description, organizations, "json", database, extra={"store_algorithm_id": found["id"]})
