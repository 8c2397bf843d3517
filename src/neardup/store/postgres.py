"""PostgreSQL store (psycopg 3), for a shared database, larger collections and several writers.

Every write transaction takes one advisory lock (``pg_advisory_xact_lock``) before it reads
what others committed and decides; the lock is released by the commit. So the processes that
share a database decide one after another, each seeing everything committed before it, and the
commit order equals the order of ``seq`` (documents and deletions share one sequence).
"""

from __future__ import annotations

from ..errors import ConfigError, StoreBusyError, StoreError, StoreFullError, require
from .sql import SqlStore
from .url import redact

# pg_advisory_xact_lock key of neardup writers: the first 8 bytes of "neardup\0" as an int64.
WRITER_LOCK_KEY = int.from_bytes(b"neardup\0", "big", signed=True)
_BUSY_STATES = ("08", "40", "55", "57")  # connection, rollback/serialization, lock, shutdown
_FULL_STATES = ("53100", "53200", "53400")  # disk full, out of memory, configuration limit


class PostgresStore(SqlStore):
    """``postgresql://user:password@host:port/database``; needs ``pip install 'neardup[postgres]'``."""

    placeholder = "%s"
    seq_column = "seq BIGSERIAL PRIMARY KEY"
    float_type = "DOUBLE PRECISION"
    shared = True

    def __init__(self, url: str, *, read_only: bool = False):
        self._psycopg = require("psycopg", extra="postgres", purpose="a postgresql:// store")
        self._dsn = url
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
        self._execute("SELECT pg_advisory_xact_lock(?)", (WRITER_LOCK_KEY,))

    def _record_deletion(self, doc_id: str) -> None:
        self._execute(
            "INSERT INTO neardup_deletions (seq, id) VALUES "
            "(nextval(pg_get_serial_sequence('neardup_documents', 'seq')), ?)",
            (doc_id,),
        )

    def _begin(self) -> None:
        """A connection the server dropped is replaced at the start of the next transaction."""
        if self._conn.closed:
            try:
                self._conn = self._connect(self.url, self.read_only)
            except ConfigError as exc:
                raise StoreBusyError(str(exc)) from None

    def _classify(self, exc: Exception) -> StoreError:
        state = getattr(exc, "sqlstate", None) or ""
        if state in _FULL_STATES:
            return StoreFullError(f"storage full: {exc}")
        if state[:2] in _BUSY_STATES or isinstance(exc, self._psycopg.OperationalError):
            return StoreBusyError(f"storage unavailable: {exc}")
        return StoreError(f"storage error: {exc}")
