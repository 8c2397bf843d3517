"""PostgreSQL store (psycopg 3), for a shared database and larger collections."""

from __future__ import annotations

from ..errors import ConfigError, require
from .sql import SqlStore


class PostgresStore(SqlStore):
    """``postgresql://user:password@host:port/database``; needs ``pip install 'neardup[postgres]'``."""

    placeholder = "%s"
    seq_column = "seq BIGSERIAL PRIMARY KEY"
    float_type = "DOUBLE PRECISION"

    def __init__(self, url: str):
        psycopg = require("psycopg", extra="postgres", purpose="a postgresql:// store")
        try:
            conn = psycopg.connect(url, connect_timeout=10)
        except psycopg.Error as exc:
            raise ConfigError(f"cannot connect to {_redact(url)}: {str(exc).strip()}") from None
        super().__init__(_redact(url), conn)


def _redact(url: str) -> str:
    """The URL without its password, for messages."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        cred, host = rest.rsplit("@", 1)
        user = cred.split(":", 1)[0]
        return f"{scheme}://{user}:***@{host}" if ":" in cred else url
    return url
