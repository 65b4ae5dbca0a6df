"""Following a run's log (docs/run-logs.md): the run read until it has finished, each new piece given once."""

from __future__ import annotations

import time
from typing import Any, Callable, Dict, Iterator


def follow_log(read: Callable[[], Dict[str, Any]], interval: float) -> Iterator[str]:
    """The new pieces of a run's log until it has finished. The node's final report replaces the live log with the
    whole container log: what it holds beyond the part already given comes as one more piece."""
    seen = ""
    while True:
        run = read()
        log = run.get("log") or ""
        same = 0
        for a, b in zip(seen, log):
            if a != b:
                break
            same += 1
        if len(log) > same:
            yield log[same:]
        seen = log
        if run.get("finished_at") is not None:
            return
        time.sleep(interval)
