"""The store protocol: persisted fingerprints and metadata, one implementation per backend.

Schema (the same in every SQL backend)::

    neardup_meta        (key TEXT PRIMARY KEY, value TEXT)           version + parameters (JSON)
    neardup_documents   (seq, id TEXT UNIQUE, fingerprint BIGINT, length INTEGER,
                         text_hash BIGINT, duplicate_of TEXT NULL, added_at DOUBLE, payload TEXT NULL)
    neardup_checkpoints (name TEXT PRIMARY KEY, value TEXT)          resumable batch jobs

Fingerprints and text hashes are unsigned 64-bit values; SQL integers are signed, so they are
stored through :func:`to_signed` / :func:`to_unsigned` — the only place that mapping happens.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..errors import IncompatibleIndexError, StoreError

_TWO64 = 1 << 64
_TWO63 = 1 << 63


def to_signed(value: int) -> int:
    """Unsigned 64-bit -> signed 64-bit (same bits), for SQL BIGINT columns."""
    value = int(value)
    if not 0 <= value < _TWO64:
        raise ValueError(f"{value} is not an unsigned 64-bit value")
    return value - _TWO64 if value >= _TWO63 else value


def to_unsigned(value: int) -> int:
    """Signed 64-bit -> unsigned 64-bit (same bits)."""
    value = int(value)
    return value + _TWO64 if value < 0 else value


def to_unsigned_array(values: Sequence[int]) -> np.ndarray:
    return np.asarray(values, dtype=np.int64).view(np.uint64)


@dataclass(frozen=True)
class StoredDocument:
    id: str
    fingerprint: int  # unsigned
    length: int
    text_hash: int  # unsigned
    duplicate_of: str | None = None
    added_at: float = 0.0
    payload: dict[str, Any] | None = field(default=None, compare=False)

    def row(self) -> tuple:
        return (
            self.id,
            to_signed(self.fingerprint),
            self.length,
            to_signed(self.text_hash),
            self.duplicate_of,
            self.added_at,
            None if self.payload is None else json.dumps(self.payload, ensure_ascii=False),
        )

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> StoredDocument:
        doc_id, fp, length, text_hash, dup, added, payload = row
        return cls(
            doc_id,
            to_unsigned(fp),
            int(length),
            to_unsigned(text_hash),
            dup,
            float(added),
            None if payload is None else stored_json(payload, f"document {doc_id!r}"),
        )


@dataclass(frozen=True)
class Snapshot:
    """Everything needed to rebuild the in-memory index, in insertion order."""

    ids: list[str]
    fingerprints: np.ndarray  # uint64
    text_hashes: np.ndarray  # uint64
    payloads: list[dict[str, Any] | None]
    duplicate_of: list[str | None]  # the representative of a stored duplicate, else None
    last_seq: int = 0  # the commit position the snapshot reflects (see Store.changes_since)


@dataclass(frozen=True)
class Changes:
    """What other writers committed after a position: stored documents and deleted ids."""

    stored: list[tuple[int, StoredDocument]]  # (seq, document), in commit order
    deleted: list[tuple[int, str]]  # (seq, id), in commit order

    def in_order(self) -> list[tuple[int, StoredDocument | str]]:
        """Both lists merged by position: a ``str`` is a deletion."""
        merged: list[tuple[int, StoredDocument | str]] = [*self.stored, *self.deleted]
        return sorted(merged, key=lambda item: item[0])


class Store(Protocol):
    """``shared``: other processes may write the store at the same time (PostgreSQL); a detector
    then asks :meth:`changes_since` before each decision. ``writing()`` is one write transaction
    holding the writer lock; ``put_many`` and ``delete`` called inside it join it."""

    url: str
    shared: bool
    read_only: bool

    def writing(self) -> AbstractContextManager[None]: ...
    def changes_since(self, seq: int) -> Changes: ...
    def last_seq(self) -> int: ...

    def check_meta(self, version: str, params: dict[str, Any]) -> None: ...
    def meta(self) -> dict[str, Any]: ...
    def put_many(
        self,
        docs: Sequence[StoredDocument],
        *,
        replacing: Collection[str] = (),
        checkpoint: tuple[str, str] | None = None,
    ) -> None: ...
    def get(self, doc_id: str) -> StoredDocument | None: ...
    def duplicates_of(self, doc_id: str) -> list[StoredDocument]: ...
    def delete(self, doc_id: str) -> bool: ...
    def count(self) -> int: ...
    def snapshot(self) -> Snapshot: ...
    def get_checkpoint(self, name: str) -> str | None: ...
    def close(self) -> None: ...


CONCURRENT_WRITE = (  # a row put_many was not told it replaces: one message for every store
    "an id of this write is already stored (another writer stored it meanwhile, or the caller "
    "did not name it among the ids it replaces); nothing of this write was committed"
)


def stored_json(text: str, what: str) -> Any:
    """A JSON value read from a store; an unreadable one is a StoreError naming it (a damaged
    file, or one written by something else), not a traceback."""
    try:
        return json.loads(text)
    except (TypeError, ValueError) as exc:
        raise StoreError(
            f"the store's {what} is unreadable ({exc}): the store is damaged or was written by "
            "another program; restore it from a backup or rebuild it"
        ) from None


def compare_meta(stored: dict[str, str], version: str, params: dict[str, Any], url: str) -> None:
    """Raise IncompatibleIndexError naming every difference between stored and wanted metadata."""
    diffs = []
    if stored.get("version") != version:
        diffs.append(f"algorithm version: stored {stored.get('version')!r}, now {version!r}")
    old, new = _leaves(stored_json(stored.get("params", "{}"), "parameters")), _leaves(params)
    keys = sorted(set(old) | set(new))
    if old.get("method") != new.get("method"):  # the options of two methods: all differ
        keys = ["method"]
    added = []  # options a store built before them lacks (stored only when on), and their off
    for key in keys:
        if old.get(key) != new.get(key):
            diffs.append(f"{key}: stored {old.get(key)!r}, now {new.get(key)!r}")
            value = new.get(key)
            if key not in old and (value is True or type(value) is int):
                added.append(f"{key.rsplit('.', 1)[-1]}={'false' if value is True else 0}")
    if diffs:
        hint = (
            "; the common-gram table differs: pass the table the store was built with "
            "(--tables OUTDIR/common_grams.npz)"
            if any(key.endswith("common_grams") and old.get(key) != new.get(key) for key in keys)
            else ""
        )
        versions = version != stored.get("version") or any(
            key.endswith("rule_version") and old.get(key) != new.get(key) for key in keys
        )
        if added and not versions:  # another rule or contract: no option opens it
            hint += (
                "; a store built before an option that is on by default opens with it off: "
                + " ".join(f"--option {setting}" for setting in added)
            )
        raise IncompatibleIndexError(
            f"the store {url} was built with other settings ({'; '.join(diffs)}); use the same "
            f"settings or a new store{hint}"
        )


def _leaves(params: Any, prefix: str = "") -> dict[str, Any]:
    """Nested settings as ``{"options.gram": 3, ...}``, so a difference names its own field."""
    if not isinstance(params, dict):
        return {prefix: params}
    out: dict[str, Any] = {}
    for key, value in params.items():
        out.update(_leaves(value, f"{prefix}.{key}" if prefix else str(key)))
    return out


def batched(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
