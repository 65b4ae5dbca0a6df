"""Waking a wait on the server's socket events (docs/socket-protocol.md, docs/client-python.md#waiting-for-results).

A :class:`EventWatch` opens one socket.io connection to namespace ``/tasks`` with the user's access token in the
``Authorization`` header, learns which rooms the server put it in from the server's "``<name>`` joined room
``<room>``" messages, and wakes the waiter when an event about what it waits for arrives. Polling stays the
fallback: without ``python-socketio`` (``python3-socketio`` on Debian), when the socket cannot connect, when the
user is in none of the rooms that get the events, and while the socket is down.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Set

from .exceptions import FederaError

try:  # optional: the client works with requests and cryptography alone
    import engineio
    import socketio
except ImportError:  # pragma: no cover - exercised by the tests in a process where it is unimportable
    engineio = None
    socketio = None

if TYPE_CHECKING:
    from .client import Client

__all__ = ["EventWatch", "socket_available", "task_rooms"]

log = logging.getLogger("federa_client.socket")
#: python-socketio's own messages (one per packet at INFO): only its warnings unless a user asks for more.
socketio_log = logging.getLogger("federa_client.socket.io")
socketio_log.setLevel(logging.WARNING)

NAMESPACE = "/tasks"
#: While listening, a wait still reads at least this often (every ``max(5 × sleep, this)`` seconds), in case an
#: event was missed.
SAFETY_READ_SECONDS = 5.0
#: How long to wait for the connection (each HTTP request of the handshake, and the namespace).
CONNECT_TIMEOUT_SECONDS = 5.0
#: How long to wait, once connected, for the server to name a room that gets the events.
JOIN_TIMEOUT_SECONDS = 2.0
#: While the socket is down, try to connect again at most this often.
RECONNECT_EVERY_SECONDS = 5.0
#: A second ``expired_token`` within this time of a refresh gives the socket up (polling instead).
REFRESH_AGAIN_AFTER_SECONDS = 60.0

_JOINED = re.compile(r" joined room (\S+)$")


def socket_available() -> bool:
    """Whether ``python-socketio`` can be imported here."""
    return socketio is not None


def task_rooms(collaboration_id: Optional[int], organization_ids: Iterable[Optional[int]]) -> Set[str]:
    """The rooms that get the events of a run of ``collaboration_id`` that concerns ``organization_ids`` (the task's
    initiator, the run's organization): ``collaboration_<c>`` and ``collaboration_<c>_organization_<o>``
    (docs/socket-protocol.md#rooms)."""
    if collaboration_id is None:
        return set()
    rooms = {f"collaboration_{collaboration_id}"}
    rooms.update(f"collaboration_{collaboration_id}_organization_{o}" for o in organization_ids if o is not None)
    return rooms


def _daemon_client_class():
    """A ``socketio.Client`` whose background threads do not keep the program alive (a follow that is never
    finished must not block the interpreter's exit)."""

    class _DaemonEngineIO(engineio.Client):
        def start_background_task(self, target, *args, **kwargs):
            thread = threading.Thread(target=target, args=args, kwargs=kwargs, daemon=True)
            thread.start()
            return thread

    class _Client(socketio.Client):
        def _engineio_client_class(self):
            return _DaemonEngineIO

    return _Client


class EventWatch:
    """One socket for one wait. ``wakes(event, payload)`` says whether an event concerns the wait; ``rooms`` are
    the rooms whose events do. Use :meth:`open` once, then :meth:`pause` instead of ``time.sleep``, and
    :meth:`close` at the end."""

    def __init__(self, client: "Client", rooms: Set[str], wakes: Callable[[str, Any], bool]):
        self._client = client
        self._wanted = set(rooms)
        self._wakes = wakes
        self._sio: Any = None
        self._joined: Set[str] = set()
        self._woken = threading.Event()
        self._ready = threading.Event()
        self._expired = threading.Event()
        self._lock = threading.Lock()
        self._last_refresh: Optional[float] = None
        self._last_attempt = 0.0
        self._used = False  # whether self._sio has been connected once (then the next attempt takes a new one)
        self._given_up = False
        self._join_timeout = JOIN_TIMEOUT_SECONDS

    @property
    def listening(self) -> bool:
        """Connected and in a room that gets the events of the wait."""
        return self._sio is not None and self._ready.is_set()

    # ------------------------------------------------------------------ connection

    def open(self, within: Optional[float] = None) -> bool:
        """Connect; ``True`` when events of the wait will arrive (else the caller polls). ``within``: seconds the
        wait has left, which the wait for the server's rooms does not exceed."""
        self._join_timeout = JOIN_TIMEOUT_SECONDS if within is None else max(0.0, min(JOIN_TIMEOUT_SECONDS, within))
        if socketio is None:
            self._client.log("python-socketio is not installed: waiting by polling")
            self._given_up = True
            return False
        if not self._wanted or not getattr(self._client, "use_socket", True):
            self._given_up = True
            return False
        try:
            self._sio = self._make_socket()
            self._used = False
        except Exception as exc:  # a python-socketio of another generation: polling is the answer
            self._give_up(f"cannot set up a socket ({type(exc).__name__})")
            return False
        return self._connect(first=True)

    def _make_socket(self) -> Any:
        try:
            cls = _daemon_client_class()
        except Exception:  # pragma: no cover - engineio without a subclassable Client
            cls = socketio.Client
        sio = cls(reconnection=False, handle_sigint=False, logger=socketio_log, engineio_logger=socketio_log,
                  request_timeout=CONNECT_TIMEOUT_SECONDS)
        on = lambda event, handler: sio.on(event, self._from(sio, handler), namespace=NAMESPACE)  # noqa: E731
        on("connect", self._on_connect)
        on("disconnect", self._on_disconnect)
        on("message", self._on_message)
        on("expired_token", self._on_expired)
        for event in ("status_update", "algorithm_status_change", "kill_containers", "run_log_update"):
            on(event, self._handler(event))
        return sio

    def _from(self, sio: Any, handler: Callable[..., None]) -> Callable[..., None]:
        """``handler`` for events of ``sio`` while it is the watch's socket: a socket replaced by a new one may still
        report its own end from its threads, which must not touch the new connection."""

        def handle(*args: Any) -> None:
            if self._sio is sio:
                handler(*args)

        return handle

    def _renew(self) -> None:
        """A new socket object for the next attempt. python-socketio's ``Client`` is not connected twice: the threads
        of its previous connection end later and would reset the state of (and read the packets queued for) the
        next one, which then never joins the namespace."""
        old, self._sio = self._sio, self._make_socket()
        if old is not None:
            try:
                old.disconnect()
            except Exception:  # already closed
                pass

    def _connect(self, first: bool = False) -> bool:
        """One connection attempt, with one token refresh when the server says the token is not valid. When the
        first attempt fails the socket is given up; a later one (after the socket went down) is tried again."""
        for attempt in (1, 2):
            if self._used:
                self._renew()
            self._used = True
            self._last_attempt = time.monotonic()
            self._ready.clear()
            self._expired.clear()
            with self._lock:
                self._joined.clear()
            try:
                self._sio.connect(self._client.socket_url, headers=self._headers, namespaces=[NAMESPACE],
                                  wait_timeout=CONNECT_TIMEOUT_SECONDS)
            except Exception as exc:  # socketio.exceptions.ConnectionError, ValueError, requests errors
                if first:
                    self._give_up(f"no socket connection to {self._client.socket_url}: {type(exc).__name__}")
                else:
                    self._drop()
                return False
            deadline = time.monotonic() + self._join_timeout
            while not self._ready.is_set() and not self._expired.is_set() and time.monotonic() < deadline:
                self._woken.wait(0.05)
                self._woken.clear()
            if self._ready.is_set():
                self._woken.clear()  # the caller reads next anyway
                self._client.log("Listening to the server's events on a socket")
                return True
            if self._expired.is_set() and attempt == 1 and self._refresh_for_socket():
                self._drop()
                continue
            break
        if not self._expired.is_set():
            self._give_up("the server put this user in no room that gets these events (rule event view)")
        else:
            self._give_up("the server did not take the token on the socket")
        return False

    def _headers(self) -> dict:
        return {"Authorization": f"Bearer {self._client._access_token}"}

    def _refresh_for_socket(self) -> bool:
        now = time.monotonic()
        if self._last_refresh is not None and now - self._last_refresh < REFRESH_AGAIN_AFTER_SECONDS:
            return False
        self._last_refresh = now
        try:
            self._client._refresh()
        except FederaError:
            return False
        return True

    def _drop(self) -> None:
        """Disconnect, keeping the socket object for another attempt."""
        self._ready.clear()
        if self._sio is not None:
            try:
                self._sio.disconnect()
            except Exception:  # already closed
                pass

    def _give_up(self, why: str) -> None:
        if not self._given_up:
            self._client.log(f"Not listening on a socket ({why}): waiting by polling")
        self._given_up = True
        self.close()

    def close(self) -> None:
        """Close the socket (nothing to do when none was opened)."""
        sio, self._sio = self._sio, None
        self._ready.clear()
        if sio is not None:
            try:
                sio.disconnect()
            except Exception:
                pass

    # ------------------------------------------------------------------ waiting

    def pause(self, seconds: float) -> bool:
        """Wait up to ``seconds`` or until an event of the wait (or a reconnection) arrives; ``True`` when woken.
        Refreshes the token and reconnects here, on the waiting thread, when the socket needs it."""
        woken = self._woken.wait(max(0.0, seconds))
        self._woken.clear()
        if self._given_up or self._sio is None:
            return woken
        if self._expired.is_set():
            if self._refresh_for_socket():
                self._drop()
                return self._connect() or woken
            self._give_up("the token could not be refreshed for the socket")
            return woken
        if not self._sio.connected and time.monotonic() - self._last_attempt >= RECONNECT_EVERY_SECONDS:
            self._drop()
            # Events were missed while the socket was down: the caller reads again either way.
            return self._connect() or woken
        return woken

    # ------------------------------------------------------------------ socket handlers (socket.io's thread)

    def _on_connect(self) -> None:
        log.debug("socket connected")

    def _on_disconnect(self) -> None:
        self._ready.clear()
        with self._lock:
            self._joined.clear()
        self._woken.set()

    def _on_message(self, text: Any = None) -> None:
        match = _JOINED.search(str(text or ""))
        if not match:
            return
        # Messages to a room reach only its members: any "joined room R" means this socket is in R.
        with self._lock:
            self._joined.add(match.group(1))
            if self._joined & self._wanted and not self._ready.is_set():
                self._ready.set()
                self._woken.set()

    def _on_expired(self, *args: Any) -> None:
        self._expired.set()
        self._woken.set()

    def _handler(self, event: str) -> Callable[..., None]:
        def handle(payload: Any = None, *rest: Any) -> None:
            try:
                if self._wakes(event, payload):
                    self._woken.set()
            except Exception:  # a malformed payload never breaks the wait: the next read tells
                log.debug("ignored a malformed %s event", event)

        return handle


# ---------------------------------------------------------------------- what a wait listens for


def _ref(value: Any) -> Optional[int]:
    """The id of a reference (``{"id": 3, ...}``) or of a bare id; ``None`` when there is none."""
    if isinstance(value, dict):
        value = value.get("id")
    if isinstance(value, bool):
        return None
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _field(payload: Any, key: str) -> Optional[int]:
    return _ref(payload.get(key)) if isinstance(payload, dict) else None


def _killed(payload: Any, task_id: Optional[int], result_id: Optional[int]) -> bool:
    """``kill_containers`` about the task or run: in its kill list, or every run of a node (which may be one)."""
    if not isinstance(payload, dict):
        return False
    if payload.get("node_id") is not None:
        return True
    entries = payload.get("kill_list") if isinstance(payload.get("kill_list"), list) else []
    return any(isinstance(e, dict) and ((task_id is not None and _ref(e.get("task_id")) == task_id)
                                        or (result_id is not None and _ref(e.get("result_id")) == result_id))
               for e in entries)


def watch_task(client: "Client", task: dict) -> EventWatch:
    """A watch woken by the events of ``task``'s runs (``GET /task/{id}`` as read)."""
    task_id = _ref(task.get("id"))
    runs = {_ref(r) for r in (task.get("results") or [])}

    def wakes(event: str, payload: Any) -> bool:
        if event == "status_update":
            return _field(payload, "result_id") in runs
        if event == "algorithm_status_change":
            return _field(payload, "task_id") == task_id or _field(payload, "result_id") in runs
        if event == "kill_containers":
            return _killed(payload, task_id, None)
        return False

    initiator = _ref(task.get("init_org", task.get("initiator")))
    return EventWatch(client, task_rooms(_ref(task.get("collaboration")), [initiator]), wakes)


def watch_run(client: "Client", run: dict) -> EventWatch:
    """A watch woken by the events of one run (``GET /result/{id}?include=task`` as read): its log growing
    (``run_log_update``), its status changing, its task killed."""
    run_id = _ref(run.get("id"))
    task = run.get("task") if isinstance(run.get("task"), dict) else {}
    task_id = _ref(task) if task else _ref(run.get("task"))

    def wakes(event: str, payload: Any) -> bool:
        if event in ("run_log_update", "status_update", "algorithm_status_change"):
            return _field(payload, "result_id") == run_id
        if event == "kill_containers":
            return _killed(payload, task_id, run_id)
        return False

    initiator = _ref(task.get("init_org", task.get("initiator")))
    return EventWatch(client, task_rooms(_ref(task.get("collaboration")), [_ref(run.get("organization")), initiator]),
                      wakes)
