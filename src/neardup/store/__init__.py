"""Persistence edge: one store protocol, backends chosen by URL.

=====================  =============================================  ==================
URL                    backend                                        needs
=====================  =============================================  ==================
``sqlite:///f.db``     SQLite file (relative path; ``sqlite:////abs``  stdlib
                       for an absolute one), WAL, synchronous=FULL
``postgresql://...``   PostgreSQL via psycopg 3                       ``neardup[postgres]``
``memory://``          in memory, for tests                           —
=====================  =============================================  ==================
"""

from __future__ import annotations

from urllib.parse import parse_qs, parse_qsl, urlsplit

from ..errors import ConfigError
from .base import Changes, Snapshot, Store, StoredDocument, to_signed, to_unsigned
from .memory import MemoryStore
from .url import redact, sqlite_path


def open_store(url: str, *, read_only: bool = False) -> Store:
    """Open (creating if needed) the store at ``url``; ``read_only`` never creates or writes."""
    if not isinstance(url, str) or "://" not in url:
        raise ConfigError(
            f"--db {url!r} is not a store URL; use sqlite:///path.db, "
            "postgresql://user@host/db or memory://"
        )
    scheme = url.split("://", 1)[0].lower()
    if scheme == "memory":
        if read_only:
            raise ConfigError(f"{url!r}: an in-memory store is empty in a new process")
        return MemoryStore(url)
    if scheme == "sqlite":
        from .sqlite import SqliteStore

        parts = urlsplit(url)
        path = sqlite_path(url)
        if not path:
            raise ConfigError(f"{url!r}: give a file, e.g. sqlite:///neardup.db")
        query = parse_qs(parts.query)
        given = {key for key, _ in parse_qsl(parts.query, keep_blank_values=True)}
        unknown = sorted(given - {"synchronous"})
        if unknown:  # a misspelt ?synchronus=normal would be ignored, the store opened as full
            raise ConfigError(
                f"{url!r}: unknown parameter {unknown[0]!r}; a SQLite store takes only "
                "?synchronous=full or ?synchronous=normal (a '?' in a file name starts the "
                "parameters: rename such a file)"
            )
        return SqliteStore(
            url, path, synchronous=query.get("synchronous", ["full"])[0], read_only=read_only
        )
    if scheme in ("postgresql", "postgres"):
        from .postgres import PostgresStore

        return PostgresStore(url, read_only=read_only)
    raise ConfigError(
        f"unknown store scheme {scheme!r} in {redact(url)!r}; use sqlite, postgresql or memory"
    )


__all__ = [
    "Changes",
    "MemoryStore",
    "Snapshot",
    "Store",
    "StoredDocument",
    "open_store",
    "redact",
    "to_signed",
    "to_unsigned",
]
