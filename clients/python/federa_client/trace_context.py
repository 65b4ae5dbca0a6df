"""The client's part in a task's trace (docs/observability.md#traces): ``POST /task`` and the reads that prepare it
send a new W3C ``traceparent``, and the later reads of that task (``task.get``, ``result.from_task``,
``wait_for_results``) send the same one, so that a tracing server and its nodes show the whole task, from the post
to the researcher's read, as one trace. The client itself records no spans."""

from __future__ import annotations

import secrets
from collections import OrderedDict
from contextlib import contextmanager
from typing import Iterator, Optional

__all__ = ["TaskTraces", "new_traceparent"]


def new_traceparent() -> str:
    """A ``traceparent`` of a new trace, sampled (``-01``): its ids random and never all zero."""
    while True:
        ids = secrets.token_bytes(24)
        if any(ids[:16]) and any(ids[16:]):
            return f"00-{ids[:16].hex()}-{ids[16:].hex()}-01"


class TaskTraces:
    """The trace context of each task this client created (the newest :attr:`LIMIT` kept), and the one the
    requests being sent now belong to (``current``, sent as the ``traceparent`` header)."""

    LIMIT = 1000

    def __init__(self) -> None:
        self._by_task: "OrderedDict[int, str]" = OrderedDict()
        self.current: Optional[str] = None

    def remember(self, task_id: int, traceparent: str) -> None:
        self._by_task[task_id] = traceparent
        self._by_task.move_to_end(task_id)
        while len(self._by_task) > self.LIMIT:
            self._by_task.popitem(last=False)

    def of(self, task_id: int) -> Optional[str]:
        """The context of a task this client created, if it still knows it."""
        return self._by_task.get(task_id)

    @contextmanager
    def within(self, traceparent: Optional[str]) -> Iterator[None]:
        """The requests sent inside the block carry ``traceparent`` (none when it is None)."""
        before = self.current
        self.current = traceparent
        try:
            yield
        finally:
            self.current = before
