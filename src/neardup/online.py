"""Online check-and-insert over a persistent store (reference 003's production shape).

A :class:`Detector` answers "is this text a near-duplicate, and of which documents?", inserts it,
and survives restarts: on construction it checks the store's algorithm version and parameters
and rebuilds its in-memory index from the store. Inserts are acknowledged only after the store
committed them. One lock covers check + insert, so two near-duplicates sent at the same moment
cannot both be reported unique, and an id is never inserted twice.

The decision is the method's own (:mod:`neardup.methods.incremental`): the detector keeps only
the lock, idempotency and the store transaction. Its configuration is a method name and that
method's options (the fields of its config class, as for ``neardup dedup``). A new document is
compared only with stored documents that were **kept** (not duplicates), and its matches come
best first (highest similarity, ties to the earliest stored): the first match is the
representative ``neardup dedup --keep first`` gives. Duplicates are stored when
``store_duplicates`` (the default) but never matched against.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .config import FINGERPRINT_VERSION
from .errors import ConfigError, NeardupError
from .methods import DEFAULT_METHOD, create, online_methods
from .methods.incremental import Doc, Match
from .simhash import feature_hash

DETECTOR_METHODS = online_methods()


class DocumentConflictError(NeardupError):
    """The id is stored with a different text and ``replace`` was not asked for."""


@dataclass(frozen=True)
class CheckResult:
    duplicate: bool
    matches: list[Match]  # the best ``max_matches``, best first


@dataclass(frozen=True)
class AddResult:
    duplicate: bool
    matches: list[Match]  # the best ``max_matches``, best first
    inserted: bool
    status: str  # inserted | unchanged | duplicate_not_stored | replaced


@dataclass
class _Prepared:
    doc_id: str
    text_hash: int
    length: int
    doc: Doc


class Detector:
    """Check-and-insert over ``store`` (see the module docstring).

    ``method`` and ``options`` choose the decision; ``tables`` passes frozen tables a method
    fitted on a corpus (``auto``: the common-gram table ``neardup dedup`` writes beside its
    outputs), so that online decisions equal the batch run's.
    """

    def __init__(
        self,
        *,
        store: Any,
        method: str = DEFAULT_METHOD,
        options: dict[str, Any] | None = None,
        tables: Any = None,
        store_duplicates: bool = True,
        max_matches: int = 20,
        **more_options: Any,
    ):
        if method not in DETECTOR_METHODS:
            raise ConfigError(
                f"method={method!r} cannot run online; choose one of {', '.join(DETECTOR_METHODS)}"
            )
        options = {**(options or {}), **more_options}
        self.method_name = method
        self.method = (
            create(method, tables=tables, **options)
            if tables is not None
            else create(method, **options)
        )
        self.index = self.method.online_index()
        self.store = store
        self.store_duplicates = store_duplicates
        self.max_matches = max_matches
        self._lock = threading.RLock()
        self._hashes: dict[str, int] = {}
        self._duplicates = 0
        store.check_meta(FINGERPRINT_VERSION, self.persisted())
        self._load()

    def persisted(self) -> dict[str, Any]:
        """The parameters that define stored data (checked when a store is reopened)."""
        return {"method": self.method_name, "options": self.method.persisted()}

    def _load(self) -> None:
        snap = self.store.snapshot()
        for doc_id, fp, th, payload, dup in zip(
            snap.ids,
            snap.fingerprints.tolist(),
            snap.text_hashes.tolist(),
            snap.payloads,
            snap.duplicate_of,
            strict=True,
        ):
            if dup is None:
                self.index.restore(doc_id, int(fp), payload)
            self._hashes[doc_id] = int(th)

    def _prepare(self, doc_id: str, text: str) -> _Prepared:
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {type(text).__name__}")
        return _Prepared(doc_id, feature_hash(text), len(text), self.index.prepare(text))

    def _matches(self, p: _Prepared, *, exclude: str | None = None) -> list[Match]:
        return self.index.matches(p.doc, exclude=exclude)[: self.max_matches]

    # -- public API ---------------------------------------------------------------------------
    def check(self, text: str) -> CheckResult:
        p = self._prepare("", text)
        with self._lock:
            matches = self._matches(p)
        return CheckResult(bool(matches), matches)

    def add(self, doc_id: str, text: str, *, replace: bool = False) -> AddResult:
        return self.add_many([(doc_id, text)], replace=replace)[0]

    def add_many(
        self,
        items: Sequence[tuple[str, str]],
        *,
        replace: bool = False,
        checkpoint: tuple[str, str] | None = None,
    ) -> list[AddResult]:
        """Check and insert several documents in one store transaction (order matters: a later
        item is checked against the earlier ones)."""
        from .store.base import StoredDocument  # the record type only; no I/O happens here

        prepared = [self._prepare(str(doc_id), text) for doc_id, text in items]
        with self._lock:
            results: list[AddResult] = []
            rows: list[StoredDocument] = []
            added: list[_Prepared] = []
            replaced: list[str] = []
            batch_hashes: dict[str, int] = {}
            try:
                for p in prepared:
                    old = batch_hashes.get(p.doc_id, self._hashes.get(p.doc_id))
                    status = "inserted"
                    if old is not None:
                        if old == p.text_hash:
                            matches = self._matches(p, exclude=p.doc_id)
                            results.append(AddResult(bool(matches), matches, False, "unchanged"))
                            continue
                        if not replace:
                            raise DocumentConflictError(
                                f"document {p.doc_id!r} is already stored with a different text; "
                                "send replace=true to replace it"
                            )
                        status = "replaced"
                        self._unindex(p.doc_id)
                        replaced.append(p.doc_id)
                    matches = self._matches(p, exclude=p.doc_id)
                    duplicate = bool(matches)
                    if duplicate and not self.store_duplicates:
                        results.append(AddResult(True, matches, False, "duplicate_not_stored"))
                        continue
                    rows.append(
                        StoredDocument(
                            p.doc_id,
                            p.doc.fingerprint,
                            p.length,
                            p.text_hash,
                            matches[0].id if duplicate else None,
                            time.time(),
                            p.doc.payload,
                        )
                    )
                    if not duplicate:  # only kept documents are matched against
                        self.index.add(p.doc_id, p.doc)
                    self._hashes[p.doc_id] = p.text_hash
                    batch_hashes[p.doc_id] = p.text_hash
                    added.append(p)
                    results.append(AddResult(duplicate, matches, True, status))
                self.store.put_many(rows, checkpoint=checkpoint)
            except BaseException:
                for p in added:  # nothing acknowledged: the index follows the store
                    self._unindex(p.doc_id)
                for doc_id in replaced:
                    self._restore(doc_id)
                raise
            self._duplicates += sum(1 for r in results if r.inserted and r.duplicate)
        return results

    def _unindex(self, doc_id: str) -> None:
        self.index.remove(doc_id)
        self._hashes.pop(doc_id, None)

    def _restore(self, doc_id: str) -> None:
        doc = self.store.get(doc_id)
        if doc is not None:
            if doc.duplicate_of is None:
                self.index.restore(doc.id, doc.fingerprint, doc.payload)
            self._hashes[doc.id] = doc.text_hash

    def remove(self, doc_id: str) -> bool:
        with self._lock:
            removed = self.store.delete(doc_id)
            self._unindex(doc_id)
            return removed

    def get(self, doc_id: str):
        return self.store.get(doc_id)

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._hashes

    def __len__(self) -> int:
        return len(self._hashes)

    def stats(self) -> dict[str, Any]:
        return {
            "documents": len(self._hashes),
            "method": self.method_name,
            "parameters": self.persisted(),
            "store": self.store.url,
            "fingerprint_version": FINGERPRINT_VERSION,
            "duplicates_inserted_since_start": self._duplicates,
        }
