"""vantage6 3.x's ``ClientBase`` methods of :class:`~federa_client.Client` (``request`` in vantage6's form,
``name``, ``token``, ``headers``, ``post_task``, ``get_results``, ...), as a mixin."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Optional

from .resource_base import IdLike

__all__ = ["V6ClientMethods"]

_HTTP_METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}


class V6ClientMethods:
    """Mixed into :class:`~federa_client.Client`, which provides ``api_request`` (Federa's request form) and the
    rest used here."""

    # ------------------------------------------------------------------ vantage6 3.x's ClientBase methods

    def request(self, *args: Any, **kwargs: Any) -> Any:
        """Send one API request, in either form:

        * vantage6's ``request(endpoint, json=None, method="get", params=None, first_try=True, retry=True)``
          returns the decoded JSON body (``endpoint`` relative to the API path, e.g. ``"task"``);
        * Federa's ``request(method, endpoint, *, params=None, json=None, authenticated=True)`` returns the
          ``requests.Response`` (see :attr:`api_request`).

        Both raise the :mod:`federa_client.exceptions` error of a refused request (vantage6 returned the error
        body instead) and refresh an expired token once.
        """
        if _is_federa_form(args, kwargs):
            return self.api_request(*args, **kwargs)
        return self._v6_request(*args, **kwargs)

    def _v6_request(self, endpoint: str, json: Any = None, method: str = "get", params: Optional[Dict[str, Any]] = None,
                    first_try: bool = True, retry: bool = True) -> Any:
        return self.request_json(method, endpoint, params=params, json=json)

    @property
    def name(self) -> str:
        """vantage6: ``host:port`` of the server."""
        return f"{self.host}:{self.port}"

    @property
    def token(self) -> Optional[str]:
        """vantage6: the current access token (never printed by the client)."""
        return self._access_token

    @property
    def headers(self) -> Dict[str, str]:
        """vantage6: the ``Authorization`` header of the session (empty when not logged in)."""
        return {"Authorization": f"Bearer {self._access_token}"} if self._access_token else {}

    @property
    def base_path(self) -> str:
        """vantage6: the API's address, e.g. ``http://localhost:5000/api``."""
        return self.base_url

    def generate_path_to(self, endpoint: str) -> str:
        """vantage6: the full URL of ``endpoint``."""
        return self._url(endpoint)

    def refresh_token(self) -> None:
        """vantage6: get a new access token with the refresh token now."""
        self._refresh()

    def post_task(self, name: str, image: str, collaboration_id: IdLike, input_: Any = "", description: str = "",
                  organization_ids: Optional[Iterable[Any]] = None, data_format: str = "json",
                  database: str = "default") -> Dict[str, Any]:
        """vantage6's ``post_task``: the same as ``task.create`` with the arguments in this order."""
        return self._post_task(name, image, collaboration_id, input_, description, organization_ids or [],
                               data_format, database)

    def get_results(self, id_: Optional[IdLike] = None, state: Optional[str] = None, include_task: bool = False,
                    task_id: Optional[IdLike] = None, node_id: Optional[IdLike] = None,
                    params: Optional[Dict[str, Any]] = None, *, id: Optional[IdLike] = None) -> Any:
        """vantage6's ``get_results``: one result (``id_``; ``id`` in vantage6 3.3) or the results matching the
        filters, with ``result`` decrypted and read (see ``result.get``)."""
        if id_ is None:
            id_ = id
        if id_:
            return self.result.get(id_, include_task=include_task)
        query = dict(params or {})
        query.update({k: v for k, v in (("state", state), ("task_id", task_id), ("node_id", node_id)) if v})
        if include_task:
            query["include"] = "task"
        body = self.request_json("GET", "/result", params=query)
        items = body.get("data", []) if isinstance(body, dict) else body
        decoded = [self.result._decode_lenient(i) for i in items]
        return {**body, "data": decoded} if isinstance(body, dict) else decoded


def _is_federa_form(args: tuple, kwargs: Dict[str, Any]) -> bool:
    """``request("GET", "/x", ...)`` (Federa) rather than ``request("x", json=..., method=...)`` (vantage6)."""
    if "authenticated" in kwargs:
        return True
    return (len(args) >= 2 and isinstance(args[0], str) and args[0].upper() in _HTTP_METHODS
            and isinstance(args[1], str))
