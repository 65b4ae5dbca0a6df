"""Posting a task (input serialized, then encrypted for each organization) and waiting for its results: the
:class:`TaskPosting` mixin of :class:`~federa_client.Client` (``task.create`` and ``post_task`` post through it)."""

from __future__ import annotations

import time
import warnings
from typing import Any, Dict, Iterable, List, Optional

from .encryption import EncryptionError
from .exceptions import EncryptionSetupError, TaskFailed, TaskTimeout
from .resource_base import _id as _ref_id
from .serialization import serialize
from .task_events import SAFETY_READ_SECONDS, EventWatch, watch_task
from .trace_context import new_traceparent

__all__ = ["TaskPosting"]


class TaskPosting:
    """Mixed into :class:`~federa_client.Client`, which provides ``request_json``, ``result``, ``log``,
    ``_cryptor_for`` and ``_traces``."""

    def wait_for_results(self, task_id: int, sleep: float = 1, timeout: Optional[float] = 600,
                         decrypt: bool = True, interval: Optional[float] = None) -> List[Dict[str, Any]]:
        """Wait until the task is ``complete``, then return its results as :meth:`ResultResource.from_task` does
        (``result`` decrypted and read).

        The task is read (``GET /task/{task_id}``) when the server's socket says one of its runs changed
        (docs/client-python.md#waiting-for-results), and every ``max(5 × sleep, 5)`` seconds in case an event was
        missed. Without python-socketio, or when no socket that gets the task's events can be opened, it is read
        every ``sleep`` seconds instead (``client.use_socket = False`` always polls).

        Raises :class:`TaskFailed` when any run of the task ended other than ``completed`` (crashed, failed, not
        allowed, killed, ...): the error names each failed run's status and the tail of its log, and keeps all
        results in ``.results``. Raises :class:`TaskTimeout` after ``timeout`` seconds (``None`` waits without
        limit). ``interval`` is the earlier name of ``sleep``.
        """
        pause_s = float(interval if interval is not None else sleep)
        self.log(f"Waiting for the results of task {task_id}")
        # The reads of a task this client posted belong to its trace (trace_context.py).
        with self._traces.within(self._traces.of(int(task_id))):
            return self._wait_for_results(int(task_id), pause_s, timeout, decrypt)

    def _wait_for_results(self, task_id: int, pause_s: float, timeout: Optional[float],
                          decrypt: bool) -> List[Dict[str, Any]]:
        start = time.monotonic()
        path = f"/task/{task_id}"
        task = self.request_json("GET", path)
        watch: Optional[EventWatch] = None
        try:
            while not task.get("complete"):
                elapsed = time.monotonic() - start
                if timeout is not None and elapsed >= timeout:
                    raise TaskTimeout(f"task {task_id} was not complete after {timeout} seconds "
                                      f"(status: {task.get('status', 'unknown')})")
                if watch is None:
                    watch = watch_task(self, task)
                    if watch.open(None if timeout is None else timeout - elapsed):
                        # The task may have completed before the socket listened.
                        task = self.request_json("GET", path)
                        continue
                pause = max(5 * pause_s, SAFETY_READ_SECONDS) if watch.listening else pause_s
                watch.pause(pause if timeout is None else max(0.0, min(pause, timeout - elapsed)))
                task = self.request_json("GET", path)
        finally:
            if watch is not None:
                watch.close()
        results = self.result.from_task(task_id, decrypt=decrypt)
        failed = [r for r in results if _run_failed(r)]
        if failed:
            raise TaskFailed(int(task_id), failed, results)
        self.log(f"Task {task_id} is complete")
        return results

    def _post_task(self, name: str, image: str, collaboration: Any, input_: Any, description: str,
                   organizations: Iterable[Any], data_format: str, database: str,
                   cancel_on_failure: bool = False, extra: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """Serialize ``input_`` (``json.`` + JSON, ``output_format: json`` added to a dictionary that names
        none), encrypt it for each organization (or base64 in an unencrypted collaboration) and post the task."""
        collaboration_id = _ref_id(collaboration, "collaboration")
        org_ids = [_ref_id(o, "organization") for o in organizations]
        if not org_ids:
            raise ValueError("organizations must name at least one organization id")
        if isinstance(input_, dict) and "output_format" not in input_:
            input_ = {**input_, "output_format": "json"}
        payload = serialize(input_, data_format)
        # One trace for the task: these reads, the post, and every later read of the task (trace_context.py).
        traceparent = new_traceparent()
        with self._traces.within(traceparent):
            task = self._send_task(name, image, collaboration_id, org_ids, payload, description, database,
                                   cancel_on_failure, extra)
        if isinstance(task, dict) and isinstance(task.get("id"), int):
            self._traces.remember(task["id"], traceparent)
        self.log(f"Task {task.get('id')} created")
        if isinstance(task, dict) and task.get("warning"):
            # E.g. receiving nodes offline: the task queues, and the researcher should know why nothing happens.
            warnings.warn(str(task["warning"]), stacklevel=3)
        return task

    def _send_task(self, name: str, image: str, collaboration_id: int, org_ids: List[int], payload: bytes,
                   description: str, database: str, cancel_on_failure: bool,
                   extra: Optional[Dict[str, Any]]) -> Dict[str, Any]:
        """Encrypt ``payload`` for each organization (or base64 in an unencrypted collaboration) and post it."""
        collab = self.request_json("GET", f"/collaboration/{collaboration_id}")
        # Said first: for an outsider, a missing public key would otherwise be the complaint.
        members = [o.get("id") for o in (collab.get("organizations") or []) if isinstance(o, dict)]
        outsiders = [o for o in org_ids if o not in members]
        if outsiders:
            raise ValueError(
                f"organization(s) {', '.join(str(o) for o in outsiders)} are not in the collaboration "
                f"{collaboration_id} ({collab.get('name', '')!r}); its organizations are "
                f"{', '.join(str(m) for m in members) or 'none'}")
        encrypted = bool(collab.get("encrypted"))
        cryptor = self._cryptor_for(encrypted, f"collaboration {collaboration_id}")
        entries = []
        for org_id in org_ids:
            if encrypted:
                self.log(f"Encrypting input for organization {org_id}")
                public_key = self.request_json("GET", f"/organization/{org_id}").get("public_key") or ""
                if not public_key.strip():
                    raise EncryptionSetupError(
                        f"organization {org_id} has no public key, so input for it cannot be encrypted; its node "
                        "uploads the key when it starts (or set it with client.organization.update(id, "
                        "public_key=...))")
                try:
                    text = cryptor.encrypt_bytes_to_str(payload, public_key)
                except EncryptionError as exc:
                    raise EncryptionSetupError(f"cannot encrypt input for organization {org_id}: {exc}") from None
            else:
                self.log(f"Encoding input for organization {org_id} (unencrypted collaboration)")
                text = cryptor.encrypt_bytes_to_str(payload, "")
            entries.append({"id": org_id, "input": text})
        self.log(f"Posting task {name!r} to collaboration {collaboration_id} for organization(s) "
                 f"{', '.join(str(o) for o in org_ids)}")
        return self.request_json("POST", "/task", json={
            "collaboration_id": collaboration_id,
            "organizations": entries,
            "name": name,
            "description": description,
            "image": image,
            "database": database,
            **({"cancel_on_failure": True} if cancel_on_failure else {}),
            **(extra or {}),
        })


def _run_failed(result: Dict[str, Any]) -> bool:
    """A finished run whose status is not ``completed`` (older servers report no status: then only an empty
    output of a finished run counts as failed)."""
    status = result.get("status")
    if isinstance(status, str) and status:
        return status != "completed"
    return bool(result.get("finished_at")) and not result.get("result")
