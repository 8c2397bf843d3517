"""What the SQLite and PostgreSQL stores share: the schema, the statements, the transactions.

Transactions nest: the outermost one commits or rolls back. :meth:`SqlStore.writing` opens a
write transaction that holds the store's writer lock until it commits (PostgreSQL: an advisory
lock, so several processes can write one database; SQLite: one writing process per file, so the
lock is that process's own). A store that other processes may write (``shared``) also records
deletions, so that :meth:`SqlStore.changes_since` can tell a detector what others committed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

import numpy as np

from ..errors import DocumentConflictError, StoreError
from .base import (
    CONCURRENT_WRITE,
    Changes,
    Snapshot,
    StoredDocument,
    compare_meta,
    stored_json,
    to_unsigned_array,
)

_COLUMNS = "id, fingerprint, length, text_hash, duplicate_of, added_at, payload"
TABLES = ("neardup_meta", "neardup_documents", "neardup_checkpoints")


class SqlStore:
    """A store over one DB-API connection, serialised by a lock; subclasses set the dialect."""

    placeholder = "?"
    seq_column = "seq INTEGER PRIMARY KEY AUTOINCREMENT"
    float_type = "REAL"
    shared = False  # True: other processes may write this store at the same time

    def __init__(self, url: str, connection: Any, *, read_only: bool = False):
        self.url = url
        self.read_only = read_only
        self._conn = connection
        self._lock = threading.RLock()
        self._depth = 0
        if read_only:
            self._require_schema()
        else:
            self._create_schema()

    # -- helpers ---------------------------------------------------------------------------------
    def _sql(self, statement: str) -> str:
        return statement.replace("?", self.placeholder)

    def _execute(self, statement: str, params: Sequence[Any] = ()) -> Any:
        cur = self._conn.cursor()
        cur.execute(self._sql(statement), params)
        return cur

    def _create_schema(self) -> None:
        with self._transaction():
            # processes that open a new database at once create it one after the other
            # (concurrent CREATE TABLE IF NOT EXISTS collide in PostgreSQL's catalogue)
            self._lock_writers()
            for stmt in (
                "CREATE TABLE IF NOT EXISTS neardup_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
                f"CREATE TABLE IF NOT EXISTS neardup_documents ({self.seq_column}, "
                "id TEXT NOT NULL UNIQUE, fingerprint BIGINT NOT NULL, length INTEGER NOT NULL, "
                f"text_hash BIGINT NOT NULL, duplicate_of TEXT, added_at {self.float_type} NOT NULL, "
                "payload TEXT)",
                "CREATE TABLE IF NOT EXISTS neardup_checkpoints (name TEXT PRIMARY KEY, "
                "value TEXT NOT NULL)",
                "CREATE TABLE IF NOT EXISTS neardup_deletions (seq BIGINT NOT NULL, "
                "id TEXT NOT NULL)",
                # a kept document's duplicates, found when it is deleted or replaced
                "CREATE INDEX IF NOT EXISTS neardup_documents_duplicate_of "
                "ON neardup_documents (duplicate_of)",
            ):
                self._execute(stmt)

    def _require_schema(self) -> None:
        """A read-only open of something that is not a neardup store is an error, not a write."""
        present = self._existing_tables()
        missing = [t for t in TABLES if t not in present]
        if missing:
            raise StoreError(
                f"{self.url} is not a neardup store (it has no {', '.join(missing)} table); "
                "check the --db URL, or create a store with `neardup index add` or `neardup serve`"
            )

    def _existing_tables(self) -> set[str]:  # dialect
        raise NotImplementedError

    def _begin(self) -> None:
        """Called before the outermost transaction starts (dialect: reconnect)."""

    def _lock_writers(self) -> None:
        """Hold the store's writer lock until the current transaction ends (dialect)."""

    def _classify(self, exc: Exception) -> StoreError:
        """The StoreError (busy, full, other) for a driver error (dialect)."""
        return StoreError(f"storage error: {exc}")

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """Commit on success, roll back on error (outermost only); driver errors -> StoreError."""
        with self._lock:
            if self._depth == 0:
                self._begin()
            self._depth += 1
            try:
                yield
            except BaseException as exc:
                self._depth -= 1
                if self._depth == 0:
                    self._rollback()
                if isinstance(exc, Exception) and _is_driver_error(exc):
                    raise self._classify(exc) from exc
                raise
            self._depth -= 1
            if self._depth == 0:
                try:
                    self._conn.commit()
                except Exception as exc:
                    self._rollback()
                    raise self._classify(exc) if _is_driver_error(exc) else exc from exc

    def _rollback(self) -> None:
        with suppress(Exception):  # a broken connection: the next transaction reports it
            self._conn.rollback()

    def _refuse_if_read_only(self) -> None:
        if self.read_only:
            raise StoreError(f"{self.url} was opened read-only")

    # -- protocol --------------------------------------------------------------------------------
    @contextmanager
    def writing(self) -> Iterator[None]:
        """One write transaction holding the writer lock; the calls inside join it."""
        self._refuse_if_read_only()
        with self._transaction():
            self._lock_writers()
            yield

    def check_meta(self, version: str, params: dict[str, Any]) -> None:
        with self._transaction():
            rows = self._execute("SELECT key, value FROM neardup_meta").fetchall()
            stored = {k: v for k, v in rows}
            if stored:
                compare_meta(stored, version, params, self.url)
                return
            if self.read_only:
                raise StoreError(f"{self.url} holds no neardup index yet (no parameters stored)")
            self._lock_writers()
            rows = self._execute("SELECT key, value FROM neardup_meta").fetchall()
            if rows:  # another process stored them while this one waited for the lock
                compare_meta(dict(rows), version, params, self.url)
                return
            for key, value in (
                ("version", version),
                ("params", json.dumps(params, sort_keys=True)),
            ):
                self._execute("INSERT INTO neardup_meta (key, value) VALUES (?, ?)", (key, value))

    def meta(self) -> dict[str, Any]:
        with self._transaction():
            rows = self._execute("SELECT key, value FROM neardup_meta").fetchall()
        stored = {k: v for k, v in rows}
        params = stored_json(stored.get("params", "{}"), "parameters")
        return {"version": stored.get("version"), "params": params}

    def put_many(
        self,
        docs: Sequence[StoredDocument],
        *,
        replacing: Collection[str] = (),
        checkpoint: tuple[str, str] | None = None,
    ) -> None:
        """Insert documents (and a checkpoint) in one transaction, replacing the stored ones
        whose ids are in ``replacing``; any other id already stored (another writer stored it
        unseen) fails the transaction with a conflict: never overwritten."""
        with self.writing():
            cur = self._conn.cursor()
            if docs:
                gone = [(d.id,) for d in docs if d.id in replacing]
                if gone:
                    cur.executemany(self._sql("DELETE FROM neardup_documents WHERE id = ?"), gone)
                try:
                    cur.executemany(
                        self._sql(
                            f"INSERT INTO neardup_documents ({_COLUMNS}) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?)"
                        ),
                        [d.row() for d in docs],
                    )
                except Exception as exc:
                    if not _is_unique_violation(exc):
                        raise
                    raise DocumentConflictError(CONCURRENT_WRITE) from None
            if checkpoint is not None:
                cur.execute(
                    self._sql("DELETE FROM neardup_checkpoints WHERE name = ?"), (checkpoint[0],)
                )
                cur.execute(
                    self._sql("INSERT INTO neardup_checkpoints (name, value) VALUES (?, ?)"),
                    checkpoint,
                )

    def get(self, doc_id: str) -> StoredDocument | None:
        with self._transaction():
            row = self._execute(
                f"SELECT {_COLUMNS} FROM neardup_documents WHERE id = ?", (doc_id,)
            ).fetchone()
        return None if row is None else StoredDocument.from_row(row)

    def duplicates_of(self, doc_id: str) -> list[StoredDocument]:
        """The stored duplicates whose representative is ``doc_id``, in store order."""
        with self._transaction():
            rows = self._execute(
                f"SELECT {_COLUMNS} FROM neardup_documents WHERE duplicate_of = ? ORDER BY seq",
                (doc_id,),
            ).fetchall()
        return [StoredDocument.from_row(r) for r in rows]

    def delete(self, doc_id: str) -> bool:
        with self.writing():
            cur = self._execute("DELETE FROM neardup_documents WHERE id = ?", (doc_id,))
            deleted = cur.rowcount > 0
            if deleted and self.shared:
                self._record_deletion(doc_id)
            return deleted

    def _record_deletion(self, doc_id: str) -> None:  # dialect (shared stores)
        raise NotImplementedError

    def count(self) -> int:
        with self._transaction():
            return int(self._execute("SELECT COUNT(*) FROM neardup_documents").fetchone()[0])

    def snapshot(self) -> Snapshot:
        with self._transaction():
            if self.shared and not self.read_only:
                self._lock_writers()  # a consistent cut: no writer commits in between
            last = self._last_seq()  # first: the rows are those up to it (changes_since)
            rows = self._execute(
                "SELECT id, fingerprint, text_hash, payload, duplicate_of, seq "
                "FROM neardup_documents WHERE seq <= ? ORDER BY seq",
                (last,),
            ).fetchall()
        if not rows:
            return Snapshot([], np.empty(0, np.uint64), np.empty(0, np.uint64), [], [], last)
        ids, fps, hashes, payloads, dups, _seqs = zip(*rows, strict=True)
        return Snapshot(
            list(ids),
            to_unsigned_array(fps),
            to_unsigned_array(hashes),
            [
                None if p is None else stored_json(p, f"document {i!r}")
                for i, p in zip(ids, payloads, strict=True)
            ],
            list(dups),
            last,
        )

    def last_seq(self) -> int:
        """The position of the last committed write (see :meth:`changes_since`)."""
        with self._transaction():
            return self._last_seq()

    def _last_seq(self) -> int:
        row = self._execute(
            "SELECT MAX(s) FROM (SELECT MAX(seq) AS s FROM neardup_documents "
            "UNION ALL SELECT MAX(seq) AS s FROM neardup_deletions) AS t"
        ).fetchone()
        return int(row[0] or 0)

    def changes_since(self, seq: int) -> Changes:
        """Documents stored and ids deleted after ``seq`` up to the last write committed when
        it is called, in commit order (shared stores). Each statement may see later commits
        (read committed): the bound is read first, so a document stored and then deleted
        while the two lists are read is in neither, its deletion comes with the next changes,
        and nothing before the returned position is skipped."""
        with self._transaction():
            last = self._last_seq()
            rows = self._execute(
                f"SELECT seq, {_COLUMNS} FROM neardup_documents "
                "WHERE seq > ? AND seq <= ? ORDER BY seq",
                (seq, last),
            ).fetchall()
            deleted = self._execute(
                "SELECT seq, id FROM neardup_deletions WHERE seq > ? AND seq <= ? ORDER BY seq",
                (seq, last),
            ).fetchall()
        docs = [(int(r[0]), StoredDocument.from_row(r[1:])) for r in rows]
        return Changes(docs, [(int(s), i) for s, i in deleted])

    def get_checkpoint(self, name: str) -> str | None:
        with self._transaction():
            row = self._execute(
                "SELECT value FROM neardup_checkpoints WHERE name = ?", (name,)
            ).fetchone()
        return None if row is None else row[0]

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _is_unique_violation(exc: Exception) -> bool:
    """An insert of an id already stored (sqlite3's and psycopg's IntegrityError)."""
    return _is_driver_error(exc) and any(
        c.__name__ in ("IntegrityError", "UniqueViolation") for c in type(exc).__mro__
    )


def _is_driver_error(exc: Exception) -> bool:
    return not isinstance(exc, (StoreError, ValueError)) and type(exc).__module__.split(".")[0] in (
        "sqlite3",
        "psycopg",
    )
