"""Tasks and their results (``client.task``, ``client.result``)."""

from __future__ import annotations

import hashlib
import itertools
import os
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from .encryption import EncryptionError, decrypt_stream
from .exceptions import DecryptionError, EncryptionSetupError
from .resource_base import IdLike, Pair, _id, _keep_fields, _opt_id, _Resource
from .run_logs import follow_log
from .sealed_log import SealedLogOpener, is_sealed_log
from .task_events import watch_run

__all__ = ["TaskResource", "ResultResource"]


class TaskResource(_Resource):
    """Tasks. ``list`` filters: ``initiator``, ``initiating_user``, ``collaboration``, ``image``, ``parent``,
    ``run``, ``name``, ``include_results``, ``description``, ``database`` (LIKE), ``result``, ``status``."""

    endpoint = "/task"
    kind = "task"

    def list(self, initiator: Optional[IdLike] = None, initiating_user: Optional[IdLike] = None,
             collaboration: Optional[IdLike] = None, image: Optional[str] = None, parent: Optional[IdLike] = None,
             run: Optional[int] = None, name: Optional[str] = None, include_results: bool = False,
             description: Optional[str] = None, database: Optional[str] = None, result: Optional[IdLike] = None,
             status: Optional[str] = None, page: Optional[int] = 1, per_page: Optional[int] = 20,
             include_metadata: bool = True, filter_: Optional[Pair] = None, filters: Optional[Iterable[Pair]] = None,
             field: Any = None, fields: Optional[Iterable[Any]] = None, **extra: Any) -> Any:
        """One page of tasks (vantage6 3.x's ``task.list``)."""
        query = {"initiator_id": _opt_id(initiator), "init_user_id": _opt_id(initiating_user),
                 "collaboration_id": _opt_id(collaboration), "image": image, "parent_id": _opt_id(parent),
                 "run_id": run, "name": name, "description": description, "database": database,
                 "result_id": _opt_id(result), "status": status}
        return self._page(self.endpoint, query, page, per_page, include_metadata, extra,
                          ("results",) if include_results else (), filter_, filters, field, fields)

    def get(self, id_: IdLike, include_results: bool = False, field: Any = None,
            fields: Optional[Iterable[Any]] = None) -> Dict[str, Any]:
        """One task; ``include_results=True`` embeds its results (still encrypted: use ``result.from_task`` to
        read them)."""
        params = {"include": "results"} if include_results else None
        task_id = _id(id_)
        # A task this client posted: the read belongs to its trace (trace_context.py).
        with self._client._traces.within(self._client._traces.of(task_id)):
            task = self._client.request_json("GET", f"/task/{task_id}", params=params)
        return _keep_fields(task, field, fields)

    def create(self, collaboration: IdLike, organizations: Iterable[IdLike], name: str, image: str,
               description: str = "", input: Any = None, data_format: str = "json", database: str = "default", *,
               input_: Any = None, field: Any = None, fields: Optional[Iterable[Any]] = None,
               cancel_on_failure: bool = False) -> Dict[str, Any]:
        """Post a task to ``organizations`` (ids) of ``collaboration`` (id).

        With ``cancel_on_failure=True`` (Federa), when one run of the task fails, its runs still pending are
        cancelled (docs/run-statuses.md).

        ``input`` (normally ``{"method": ..., "args": [...], "kwargs": {...}}``; ``input_`` is Federa's earlier
        name) is written as ``json.`` + JSON; when it is a dictionary without ``output_format``,
        ``"output_format": "json"`` is added so that vantage6 3.x algorithm images answer in JSON rather than a
        pickle (which this client never unpickles). It is then encrypted separately for each organization with
        the public key the server holds for it (``GET /organization/{id}``). In an unencrypted collaboration it is
        only base64-encoded. ``data_format`` ``"pickle"``/``"legacy"`` is refused (see docs/security.md).
        """
        if input is None:
            input = input_
        task = self._client._post_task(name, image, collaboration, input, description, organizations, data_format,
                                       database, cancel_on_failure)
        return _keep_fields(task, field, fields)

    def delete(self, id_: IdLike) -> Dict[str, Any]:
        """Delete a task and its results (a running task is killed first)."""
        return self._delete(id_)

    def kill(self, id_: IdLike) -> Dict[str, Any]:
        """Kill the task and its sub-tasks at every depth (``POST /kill/task``): their open runs end ``killed by user``
        and the nodes stop them. Whoever may post a task may kill it (a Researcher: their organization's tasks)."""
        self._client.log(f"Killing task {_id(id_)}")
        return self._client.request_json("POST", "/kill/task", json={"id": _id(id_)})


class ResultResource(_Resource):
    """Results (one per organization of a task). ``list`` filters: ``task``, ``organization``, ``state``
    (``"open"``), ``node``, ``include_task``, ``started``/``assigned``/``finished`` (``(from, till)`` dates),
    ``port``. ``get``, ``list`` and ``from_task`` decrypt and read each ``result``; ``list_all`` returns them as
    stored."""

    endpoint = "/result"
    kind = "result"

    def _decode(self, item: Dict[str, Any]) -> Dict[str, Any]:
        if isinstance(item, dict) and item.get("result") is not None:
            item = dict(item)
            item["result"] = self._client.decrypt_payload(item["result"], f"result {item.get('id')}")
        if isinstance(item, dict) and is_sealed_log(item.get("log")):
            item = {**item, "log": SealedLogOpener(self._client.cryptor).open(item["log"])}
        return item

    def _decode_lenient(self, item: Dict[str, Any]) -> Dict[str, Any]:
        try:
            return self._decode(item)
        except (DecryptionError, EncryptionSetupError) as exc:
            return {**item, "decryption_error": str(exc)}

    def list(self, task: Optional[IdLike] = None, organization: Optional[IdLike] = None,
             state: Optional[str] = None, node: Optional[IdLike] = None, include_task: bool = False,
             started: Optional[Tuple[str, str]] = None, assigned: Optional[Tuple[str, str]] = None,
             finished: Optional[Tuple[str, str]] = None, port: Optional[int] = None, page: Optional[int] = None,
             per_page: Optional[int] = None, include_metadata: bool = True, filter_: Optional[Pair] = None,
             filters: Optional[Iterable[Pair]] = None, field: Any = None, fields: Optional[Iterable[Any]] = None,
             **extra: Any) -> Any:
        """Results with ``result`` decrypted and read (vantage6 3.x's ``result.list``: every item unless ``page``
        is given). A result that cannot be decrypted keeps its stored string and gets ``decryption_error``."""
        s_from, s_till = started if started else (None, None)
        a_from, a_till = assigned if assigned else (None, None)
        f_from, f_till = finished if finished else (None, None)
        query = {"task_id": _opt_id(task), "organization_id": _opt_id(organization), "state": state,
                 "node_id": _opt_id(node), "started_from": s_from, "started_till": s_till, "assigned_from": a_from,
                 "assigned_till": a_till, "finished_from": f_from, "finished_till": f_till, "port": port}
        body = self._page(self.endpoint, query, page, per_page, include_metadata, extra,
                          ("task",) if include_task else (), filter_, filters)
        if isinstance(body, dict):
            body = {**body, "data": [_keep_fields(self._decode_lenient(i), field, fields) for i in body["data"]]}
            return body
        return [_keep_fields(self._decode_lenient(i), field, fields) for i in body]

    def get(self, id_: IdLike, include_task: bool = False, decrypt: bool = True, field: Any = None,
            fields: Optional[Iterable[Any]] = None) -> Dict[str, Any]:
        """One result. With ``decrypt`` (default) its ``result`` field is decrypted and read: a ``json.`` output
        gives its value, anything else (a pickle, an unknown format) the raw bytes with an
        ``UnsafePayloadWarning`` (nothing is unpickled); ``None`` while the run has not finished."""
        params = {"include": "task"} if include_task else None
        item = self._client.request_json("GET", f"/result/{_id(id_)}", params=params)
        return _keep_fields(self._decode(item) if decrypt else item, field, fields)

    def logs(self, id_: IdLike, follow: bool = False, interval: float = 1.0) -> Union[str, Iterator[str]]:
        """Federa: the run's log (docs/run-logs.md). Without ``follow``, the log as it is now (``""`` when empty).
        With ``follow=True``, an iterator of the new pieces as the run prints them, ending when the run has
        finished::

            for piece in client.result.logs(run_id, follow=True):
                print(piece, end="")

        The run is read again when the server's socket says its log grew (``run_log_update``) or its status
        changed, and every ``max(5 × interval, 5)`` seconds in case an event was missed; without python-socketio,
        or when no socket gets the run's events, every ``interval`` seconds. In an encrypted collaboration the log
        is sealed for the organization that created the task and decrypted with the key of ``setup_encryption``
        (``EncryptionSetupError`` without one, ``DecryptionError`` with another organization's)."""
        path = f"/result/{_id(id_)}"
        opener = SealedLogOpener(self._client.cryptor)
        if not follow:
            return opener.open(self._client.request_json("GET", path).get("log") or "")
        client = self._client
        return follow_log(
            lambda first: client.request_json("GET", path, params={"include": "task"} if first else None),
            interval, lambda run: watch_run(client, run), opener.open)

    def iter_output(self, id_: IdLike, chunk_size: int = 1024 * 1024) -> Iterator[bytes]:
        """Federa: the plaintext output of a run as an iterator of pieces, downloaded (``GET /result/{id}/output``)
        and decrypted as it comes, never held whole (docs/large-results.md): the way to read an output held in the
        server's result store (``result`` is ``None`` and ``result_stored`` gives its size), and any other. Raises
        :class:`DecryptionError` when the text arrives altered or cut short (its SHA-256 is checked)."""
        path = f"/result/{_id(id_)}/output"
        response = self._client.api_request("GET", path, stream=True)
        expected = response.headers.get("x-federa-sha256", "")
        client = self._client

        def text() -> Iterator[bytes]:
            digest = hashlib.sha256()
            with response:
                for chunk in response.iter_content(chunk_size):
                    digest.update(chunk)
                    yield chunk
            if expected and digest.hexdigest() != expected:
                raise DecryptionError(f"the output of result {_id(id_)} arrived altered or cut short "
                                      f"(SHA-256 {digest.hexdigest()}, the server's is {expected}); read it again")

        def plain() -> Iterator[bytes]:
            pieces = text()
            head = b""
            for chunk in pieces:
                head += chunk
                if len(head) >= 4096:
                    break
            cryptor = client._cryptor_for(b"$" in head[:4096], f"the output of result {_id(id_)}")
            try:
                yield from decrypt_stream(cryptor, itertools.chain([head], pieces))
            except EncryptionError as exc:
                raise DecryptionError(f"cannot decrypt the output of result {_id(id_)}: {exc}") from None

        return plain()

    def save_output(self, id_: IdLike, path: Union[str, os.PathLike]) -> int:
        """Federa: writes the plaintext output of a run to the file ``path`` as it comes (see :meth:`iter_output`);
        the file appears only once the output arrived whole. Returns the number of bytes written."""
        target = Path(path)
        partial = target.with_name(f"{target.name}.{os.urandom(4).hex()}.part")
        size = 0
        try:
            with open(partial, "wb") as out:
                for piece in self.iter_output(id_):
                    out.write(piece)
                    size += len(piece)
            os.replace(partial, target)
        finally:
            if partial.exists():
                partial.unlink()
        return size

    def from_task(self, task_id: IdLike, include_task: bool = False, decrypt: bool = True) -> List[Dict[str, Any]]:
        """All results of a task, each with ``result`` decrypted and read (see :meth:`get`)."""
        task = _id(task_id, "task_id")
        # A task this client posted: the reads belong to its trace (trace_context.py).
        with self._client._traces.within(self._client._traces.of(task)):
            if include_task:
                items = self._client.collect("/result", {"task_id": task, "include": "task"})
            else:
                items = self._client.collect(f"/task/{task}/result")
        return [self._decode(i) for i in items] if decrypt else list(items)
