"""Group commit: writes that arrive while one is committing share the next transaction.

A durable commit (an fsync) costs more than deciding a document, so committing each request on
its own caps a service at one fsync per request. Here the first waiting thread becomes the
leader: it takes every request queued so far and runs them through ``run_group`` — in arrival
order, one transaction, one commit — while later arrivals queue for the next group. Each request
still gets its own answer or its own error; nothing is acknowledged before its group committed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MAX_GROUP = 256  # requests per transaction: bounds the latency a large group adds


@dataclass
class Request:
    """One caller's work; ``run_group`` sets ``result`` or ``error``."""

    work: Any
    result: Any = None
    error: BaseException | None = None
    done: bool = field(default=False, repr=False)


class GroupCommit:
    def __init__(self, run_group: Callable[[list[Request]], None]):
        self._run_group = run_group
        self._cond = threading.Condition()
        self._pending: list[Request] = []
        self._leading = False

    def submit(self, work: Any) -> Any:
        """Run ``work`` in the next group; its result, or its error raised here."""
        request = Request(work)
        cond = self._cond
        with cond:
            self._pending.append(request)
            while not request.done:
                if self._leading:
                    cond.wait()
                    continue
                self._leading = True
                group, self._pending = self._pending[:MAX_GROUP], self._pending[MAX_GROUP:]
                cond.release()
                try:
                    self._run(group)
                finally:
                    cond.acquire()
                    self._leading = False
                    cond.notify_all()
        if request.error is not None:
            raise request.error
        return request.result

    def _run(self, group: list[Request]) -> None:
        try:
            self._run_group(group)
        except BaseException as exc:  # run_group failed as a whole: every request learns it
            for r in group:
                if r.error is None and r.result is None:
                    r.error = exc
        finally:
            for r in group:
                r.done = True
