"""PostgreSQL store (psycopg 3), for a shared database, larger collections and several writers.

Every write transaction takes the store's advisory lock (``pg_advisory_xact_lock``) before it
reads what others committed and decides; the lock is released by the commit. So the processes
that share a store decide one after another, each seeing everything committed before it, and
the commit order equals the order of ``seq`` (documents and deletions share one sequence).

The lock's key is the store's own (:func:`writer_lock_key`: its schema and table names), so
stores in other schemas of the database never wait for it; a write waits for it at most
``lock_timeout`` seconds, then fails as busy (the service's 503 with ``Retry-After``).
"""

from __future__ import annotations

import hashlib

from ..errors import ConfigError, StoreBusyError, StoreError, StoreFullError, require
from .sql import SqlStore
from .url import redact

LOCK_TIMEOUT_SECONDS = 10.0  # the longest a write waits for the writer lock, then busy
_BUSY_STATES = ("08", "40", "55", "57")  # connection, rollback/serialization, lock, shutdown
_FULL_STATES = ("53100", "53200", "53400")  # disk full, out of memory, configuration limit
# data the server refuses however often it is sent (a value too long for an index, a bad
# value): an error, never "busy" (psycopg files program limits under OperationalError)
_REFUSED_STATES = ("22", "54")  # data exception, program limit exceeded
_LOCK_TIMEOUT = "55P03"  # lock_not_available: lock_timeout passed
_LOCK_TABLES = ("neardup_meta", "neardup_documents", "neardup_checkpoints", "neardup_deletions")


def writer_lock_key(schema: str) -> int:
    """The advisory-lock key of the store in ``schema``: the first 8 bytes of a SHA-256 of the
    schema and the store's table names, as a signed 64-bit integer (the same in every process
    and version). Advisory locks are per database, so schema + tables name one store."""
    name = "\0".join(("neardup-writer", schema, *_LOCK_TABLES)).encode("utf-8")
    return int.from_bytes(hashlib.sha256(name).digest()[:8], "big", signed=True)


class PostgresStore(SqlStore):
    """``postgresql://user:password@host:port/database``; needs ``pip install 'neardup[postgres]'``."""

    placeholder = "%s"
    seq_column = "seq BIGSERIAL PRIMARY KEY"
    float_type = "DOUBLE PRECISION"
    shared = True
    lock_timeout = LOCK_TIMEOUT_SECONDS

    def __init__(self, url: str, *, read_only: bool = False):
        self._psycopg = require("psycopg", extra="postgres", purpose="a postgresql:// store")
        self._dsn = url
        self._lock_key: int | None = None
        self._lock_held = False  # by the transaction open now
        super().__init__(redact(url), self._connect(redact(url), read_only), read_only=read_only)

    def _connect(self, shown: str, read_only: bool):
        psycopg = self._psycopg
        try:
            conn = psycopg.connect(self._dsn, connect_timeout=10)
        except psycopg.Error as exc:
            message = str(exc).strip().replace(self._dsn, shown)
            raise ConfigError(f"cannot connect to {shown}: {message}") from None
        conn.read_only = read_only
        return conn

    def _existing_tables(self) -> set[str]:
        rows = self._execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = ANY "
            "(current_schemas(false))"
        ).fetchall()
        return {r[0] for r in rows}

    def _lock_writers(self) -> None:
        """The store's writer lock, waited for at most ``lock_timeout`` seconds (the bound
        holds for the rest of the transaction's lock waits too); a timeout is busy."""
        if self._lock_held:  # taken earlier in this transaction
            return
        if self._lock_key is None:  # the schema the tables are in: created in current_schema()
            schema = self._execute("SELECT current_schema()").fetchone()[0]
            self._lock_key = writer_lock_key(schema or "")
        milliseconds = max(1, round(self.lock_timeout * 1000))
        self._execute(f"SET LOCAL lock_timeout = {milliseconds}")
        self._execute("SELECT pg_advisory_xact_lock(?)", (self._lock_key,))
        self._lock_held = True

    def _record_deletion(self, doc_id: str) -> None:
        self._execute(
            "INSERT INTO neardup_deletions (seq, id) VALUES "
            "(nextval(pg_get_serial_sequence('neardup_documents', 'seq')), ?)",
            (doc_id,),
        )

    def _begin(self) -> None:
        """A connection the server dropped is replaced at the start of the next transaction."""
        self._lock_held = False
        if self._conn.closed:
            try:
                self._conn = self._connect(self.url, self.read_only)
            except ConfigError as exc:
                raise StoreBusyError(str(exc)) from None

    def _classify(self, exc: Exception) -> StoreError:
        state = getattr(exc, "sqlstate", None) or ""
        if state in _FULL_STATES:
            return StoreFullError(f"storage full: {exc}")
        if state == _LOCK_TIMEOUT:
            return StoreBusyError(
                "storage busy: a lock this write needs (the store's writer lock, held by another "
                f"writer) was not free within {self.lock_timeout:g} s; retry later"
            )
        if state[:2] in _REFUSED_STATES:  # sending it again cannot help
            return StoreError(f"storage error: the database refused the data: {exc}")
        if state[:2] in _BUSY_STATES or isinstance(exc, self._psycopg.OperationalError):
            return StoreBusyError(f"storage unavailable: {exc}")
        return StoreError(f"storage error: {exc}")
