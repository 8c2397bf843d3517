"""In-memory store (tests, throwaway services): same semantics as the SQL stores, no durability."""

from __future__ import annotations

import json
import threading
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..errors import DocumentConflictError
from .base import CONCURRENT_WRITE, Changes, Snapshot, StoredDocument, compare_meta


class MemoryStore:
    shared = False
    read_only = False

    def __init__(self, url: str = "memory://"):
        self.url = url
        self._docs: dict[str, StoredDocument] = {}
        self._meta: dict[str, str] = {}
        self._checkpoints: dict[str, str] = {}
        self._lock = threading.RLock()
        self._undo: list[tuple[str, StoredDocument | None]] | None = None

    @contextmanager
    def writing(self) -> Iterator[None]:
        """One transaction: on an error inside, the writes made in it are undone."""
        with self._lock:
            if self._undo is not None:  # nested: the outer transaction decides
                yield
                return
            self._undo = []
            try:
                yield
            except BaseException:
                for doc_id, old in reversed(self._undo):
                    self._docs.pop(doc_id, None)
                    if old is not None:
                        self._docs[doc_id] = old
                raise
            finally:
                self._undo = None

    def _changing(self, doc_id: str) -> None:
        if self._undo is not None:
            self._undo.append((doc_id, self._docs.get(doc_id)))

    def last_seq(self) -> int:
        return 0

    def changes_since(self, seq: int) -> Changes:
        return Changes([], [])  # one process: nobody else writes

    def check_meta(self, version: str, params: dict[str, Any]) -> None:
        with self._lock:
            if self._meta:
                compare_meta(self._meta, version, params, self.url)
            else:
                self._meta = {"version": version, "params": json.dumps(params, sort_keys=True)}

    def meta(self) -> dict[str, Any]:
        return {
            "version": self._meta.get("version"),
            "params": json.loads(self._meta.get("params", "{}")),
        }

    def put_many(
        self,
        docs: Sequence[StoredDocument],
        *,
        replacing: Collection[str] = (),
        checkpoint: tuple[str, str] | None = None,
    ) -> None:
        for d in docs:
            d.row()  # the same validation as the SQL stores, before anything changes
        with self._lock:
            if any(d.id in self._docs and d.id not in replacing for d in docs):
                raise DocumentConflictError(CONCURRENT_WRITE)
            for d in docs:
                self._changing(d.id)
                self._docs.pop(d.id, None)  # a replaced document moves to the end
                self._docs[d.id] = d
            if checkpoint:
                self._checkpoints[checkpoint[0]] = checkpoint[1]

    def get(self, doc_id: str) -> StoredDocument | None:
        return self._docs.get(doc_id)

    def duplicates_of(self, doc_id: str) -> list[StoredDocument]:
        with self._lock:
            return [d for d in self._docs.values() if d.duplicate_of == doc_id]

    def delete(self, doc_id: str) -> bool:
        with self._lock:
            self._changing(doc_id)
            return self._docs.pop(doc_id, None) is not None

    def count(self) -> int:
        return len(self._docs)

    def snapshot(self) -> Snapshot:
        with self._lock:
            docs = list(self._docs.values())
        return Snapshot(
            [d.id for d in docs],
            np.array([d.fingerprint for d in docs], dtype=np.uint64),
            np.array([d.text_hash for d in docs], dtype=np.uint64),
            [d.payload for d in docs],
            [d.duplicate_of for d in docs],
        )

    def get_checkpoint(self, name: str) -> str | None:
        return self._checkpoints.get(name)

    def close(self) -> None:
        pass
