"""SQLite store (the default): one file, WAL journal, durable commits."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..errors import ConfigError
from .sql import SqlStore

SYNCHRONOUS = ("full", "normal")


class SqliteStore(SqlStore):
    """``sqlite:///path/to.db`` (``sqlite:////abs/path.db``; ``?synchronous=normal`` to trade
    power-loss durability for speed — a committed insert then survives a process crash, such as
    ``kill -9``, but not an operating-system crash). The default ``full`` survives both."""

    def __init__(self, url: str, path: str, *, synchronous: str = "full"):
        if synchronous not in SYNCHRONOUS:
            raise ConfigError(f"synchronous={synchronous!r}: choose 'full' or 'normal'")
        if path != ":memory:":
            parent = Path(path).expanduser().resolve().parent
            if not parent.is_dir():
                raise ConfigError(f"{url}: the folder {parent} does not exist")
        try:
            conn = sqlite3.connect(path, check_same_thread=False, isolation_level="DEFERRED")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
            conn.execute("PRAGMA busy_timeout=10000")
        except sqlite3.Error as exc:
            raise ConfigError(f"{url}: cannot open the SQLite database ({exc})") from None
        super().__init__(url, conn)
