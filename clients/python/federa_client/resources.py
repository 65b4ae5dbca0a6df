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

The classes live in one module per group (:mod:`.access_resources`, :mod:`.federation_resources`,
:mod:`.task_resources`, with their shared base in :mod:`.resource_base`); this module gathers them.
"""

from __future__ import annotations

from .access_resources import RoleResource, RuleResource, UserResource
from .federation_resources import CollaborationResource, NodeResource, OrganizationResource
from .resource_base import IdLike, Pair, _body, _id, _ids, _keep_fields, _opt_id, _page_shape, _Resource  # noqa: F401
from .task_resources import ResultResource, TaskResource

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
