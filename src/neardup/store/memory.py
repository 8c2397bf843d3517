"""In-memory store (tests, throwaway services): same semantics as the SQL stores, no durability."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Snapshot, StoredDocument, compare_meta


class MemoryStore:
    def __init__(self, url: str = "memory://"):
        self.url = url
        self._docs: dict[str, StoredDocument] = {}
        self._meta: dict[str, str] = {}
        self._checkpoints: dict[str, str] = {}
        self._lock = threading.Lock()

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
        self, docs: Sequence[StoredDocument], *, checkpoint: tuple[str, str] | None = None
    ) -> None:
        for d in docs:
            d.row()  # the same validation as the SQL stores, before anything changes
        with self._lock:
            for d in docs:
                self._docs.pop(d.id, None)  # a replaced document moves to the end
                self._docs[d.id] = d
            if checkpoint:
                self._checkpoints[checkpoint[0]] = checkpoint[1]

    def get(self, doc_id: str) -> StoredDocument | None:
        return self._docs.get(doc_id)

    def delete(self, doc_id: str) -> bool:
        with self._lock:
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
