"""What the SQLite and PostgreSQL stores share: the schema, the statements, the transactions."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import StoreError
from .base import Snapshot, StoredDocument, compare_meta, to_unsigned_array

_COLUMNS = "id, fingerprint, length, text_hash, duplicate_of, added_at, payload"


class SqlStore:
    """A store over one DB-API connection, serialised by a lock; subclasses set the dialect."""

    placeholder = "?"
    seq_column = "seq INTEGER PRIMARY KEY AUTOINCREMENT"
    float_type = "REAL"

    def __init__(self, url: str, connection: Any):
        self.url = url
        self._conn = connection
        self._lock = threading.RLock()
        self._create_schema()

    # -- helpers ---------------------------------------------------------------------------------
    def _sql(self, statement: str) -> str:
        return statement.replace("?", self.placeholder)

    def _execute(self, statement: str, params: Sequence[Any] = ()) -> Any:
        cur = self._conn.cursor()
        cur.execute(self._sql(statement), params)
        return cur

    def _create_schema(self) -> None:
        with self._lock, self._transaction():
            for stmt in (
                "CREATE TABLE IF NOT EXISTS neardup_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
                f"CREATE TABLE IF NOT EXISTS neardup_documents ({self.seq_column}, "
                "id TEXT NOT NULL UNIQUE, fingerprint BIGINT NOT NULL, length INTEGER NOT NULL, "
                f"text_hash BIGINT NOT NULL, duplicate_of TEXT, added_at {self.float_type} NOT NULL, "
                "payload TEXT)",
                "CREATE TABLE IF NOT EXISTS neardup_checkpoints (name TEXT PRIMARY KEY, "
                "value TEXT NOT NULL)",
            ):
                self._execute(stmt)

    def _transaction(self):
        return _Transaction(self._conn)

    # -- protocol --------------------------------------------------------------------------------
    def check_meta(self, version: str, params: dict[str, Any]) -> None:
        with self._lock, self._transaction():
            rows = self._execute("SELECT key, value FROM neardup_meta").fetchall()
            stored = {k: v for k, v in rows}
            if stored:
                compare_meta(stored, version, params, self.url)
                return
            for key, value in (
                ("version", version),
                ("params", json.dumps(params, sort_keys=True)),
            ):
                self._execute("INSERT INTO neardup_meta (key, value) VALUES (?, ?)", (key, value))

    def meta(self) -> dict[str, Any]:
        with self._lock, self._transaction():
            rows = self._execute("SELECT key, value FROM neardup_meta").fetchall()
        stored = {k: v for k, v in rows}
        return {"version": stored.get("version"), "params": json.loads(stored.get("params", "{}"))}

    def put_many(
        self, docs: Sequence[StoredDocument], *, checkpoint: tuple[str, str] | None = None
    ) -> None:
        """Insert or replace documents (and a checkpoint) in one transaction."""
        with self._lock, self._transaction():
            cur = self._conn.cursor()
            if docs:
                ids = [(d.id,) for d in docs]
                cur.executemany(self._sql("DELETE FROM neardup_documents WHERE id = ?"), ids)
                cur.executemany(
                    self._sql(
                        f"INSERT INTO neardup_documents ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"
                    ),
                    [d.row() for d in docs],
                )
            if checkpoint is not None:
                cur.execute(
                    self._sql("DELETE FROM neardup_checkpoints WHERE name = ?"), (checkpoint[0],)
                )
                cur.execute(
                    self._sql("INSERT INTO neardup_checkpoints (name, value) VALUES (?, ?)"),
                    checkpoint,
                )

    def get(self, doc_id: str) -> StoredDocument | None:
        with self._lock, self._transaction():
            row = self._execute(
                f"SELECT {_COLUMNS} FROM neardup_documents WHERE id = ?", (doc_id,)
            ).fetchone()
        return None if row is None else StoredDocument.from_row(row)

    def delete(self, doc_id: str) -> bool:
        with self._lock, self._transaction():
            cur = self._execute("DELETE FROM neardup_documents WHERE id = ?", (doc_id,))
            return cur.rowcount > 0

    def count(self) -> int:
        with self._lock, self._transaction():
            return int(self._execute("SELECT COUNT(*) FROM neardup_documents").fetchone()[0])

    def snapshot(self) -> Snapshot:
        with self._lock, self._transaction():
            rows = self._execute(
                "SELECT id, fingerprint, text_hash, payload, duplicate_of FROM neardup_documents "
                "ORDER BY seq"
            ).fetchall()
        if not rows:
            return Snapshot([], np.empty(0, np.uint64), np.empty(0, np.uint64), [], [])
        ids, fps, hashes, payloads, dups = zip(*rows, strict=True)
        return Snapshot(
            list(ids),
            to_unsigned_array(fps),
            to_unsigned_array(hashes),
            [None if p is None else json.loads(p) for p in payloads],
            list(dups),
        )

    def get_checkpoint(self, name: str) -> str | None:
        with self._lock, self._transaction():
            row = self._execute(
                "SELECT value FROM neardup_checkpoints WHERE name = ?", (name,)
            ).fetchone()
        return None if row is None else row[0]

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class _Transaction:
    """Commit on success, roll back on error; errors of the driver become StoreError."""

    def __init__(self, conn: Any):
        self.conn = conn

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:
            self.conn.commit()
            return False
        self.conn.rollback()
        if (
            isinstance(exc, Exception)
            and not isinstance(exc, (StoreError, ValueError))
            and type(exc).__module__.split(".")[0] in ("sqlite3", "psycopg")
        ):
            raise StoreError(f"storage error: {exc}") from exc
        return False
