"""Following a run's log (docs/run-logs.md): the run read until it has finished, each new piece given once."""

from __future__ import annotations

import time
from typing import Any, Callable, Dict, Iterator, Optional

from .task_events import SAFETY_READ_SECONDS, EventWatch


def follow_log(read: Callable[[bool], Dict[str, Any]], interval: float,
               watch_for: Optional[Callable[[Dict[str, Any]], EventWatch]] = None,
               open_log: Callable[[str], str] = lambda log: log) -> Iterator[str]:
    """The new pieces of a run's log until it has finished. The node's final report replaces the live log with the
    whole container log: what it holds beyond the part already given comes as one more piece.

    ``read(first)`` reads the run (``first``: the first read, which ``watch_for`` needs, e.g. with its task).
    With ``watch_for``, the run is read again when the server's socket says its log grew or its status changed
    (and every ``max(5 × interval, 5)`` seconds in case an event was missed); without, or when no socket listens,
    every ``interval`` seconds. ``open_log`` turns the stored log into the text to show (a sealed log of an
    encrypted collaboration is decrypted)."""
    seen = ""
    watch: Optional[EventWatch] = None
    run = read(True)
    try:
        while True:
            log = open_log(run.get("log") or "")
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
            if watch is None and watch_for is not None:
                watch = watch_for(run)
                if watch.open():
                    # The log may have grown before the socket listened.
                    run = read(False)
                    continue
            if watch is not None:
                watch.pause(max(5 * interval, SAFETY_READ_SECONDS) if watch.listening else interval)
            else:
                time.sleep(interval)
            run = read(False)
    finally:
        if watch is not None:
            watch.close()
