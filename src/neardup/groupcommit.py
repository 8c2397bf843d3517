"""Group commit: writes that arrive while one is committing share the next transaction.

A durable commit (an fsync) costs more than deciding a document, so committing each request on
its own caps a service at one fsync per request. Here one committer thread takes every request
queued so far and runs them through ``run_group`` — in arrival order, one transaction, one
commit — while later arrivals queue for the next group. Each request still gets its own answer
or its own error through its future; nothing is acknowledged before its group committed.

One thread does the work so that callers only wait: an HTTP event loop awaits the future without
a thread of its own per request (no pool of threads contending for the interpreter lock), and
``run_group`` sees the whole group at once, so it can prepare the group's documents in one call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

MAX_GROUP = 256  # requests per transaction: bounds the latency a large group adds


@dataclass
class Request:
    """One caller's work; ``run_group`` sets ``result`` or ``error``."""

    work: Any
    result: Any = None
    error: BaseException | None = None
    future: Future = field(default_factory=Future, repr=False)


class GroupCommit:
    """Runs submitted work in groups on one committer thread (started on first use)."""

    def __init__(self, run_group: Callable[[list[Request]], None], *, name: str = "neardup-commit"):
        self._run_group = run_group
        self._name = name
        self._cond = threading.Condition()
        self._pending: list[Request] = []
        self._thread: threading.Thread | None = None
        self._closed = False

    def submit_future(self, work: Any) -> Future:
        """Queue ``work`` for the next group; the future holds its result or its error."""
        request = Request(work)
        with self._cond:
            if self._closed:
                raise RuntimeError("this detector is closed")
            self._pending.append(request)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
                self._thread.start()
            self._cond.notify()
        return request.future

    def submit(self, work: Any) -> Any:
        """Run ``work`` in the next group; its result, or its error raised here."""
        return self.submit_future(work).result()

    def close(self) -> None:
        """Finish what is queued, then stop the committer thread."""
        with self._cond:
            self._closed = True
            self._cond.notify()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._closed:
                    self._cond.wait()
                if not self._pending:
                    return
                group, self._pending = self._pending[:MAX_GROUP], self._pending[MAX_GROUP:]
            # a caller that gave up before its turn (a cancelled future) is not written; from
            # here on the others can no longer be cancelled, so each is resolved exactly once
            group = [r for r in group if r.future.set_running_or_notify_cancel()]
            if group:
                self._run(group)

    def _run(self, group: list[Request]) -> None:
        try:
            self._run_group(group)
        except BaseException as exc:  # run_group failed as a whole: every request learns it
            for r in group:
                if r.error is None and r.result is None:
                    r.error = exc
        for r in group:
            if r.error is not None:
                r.future.set_exception(r.error)
            else:
                r.future.set_result(r.result)
