"""Store URLs as they may be shown: credentials never leave the process in a message or response."""

from __future__ import annotations

import os
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from ..shown import shown_path

# Query parameters that never carry a secret; every other value is masked.
_SHOWN_PARAMETERS = frozenset(
    {
        "application_name",
        "connect_timeout",
        "dbname",
        "host",
        "hostaddr",
        "port",
        "sslmode",
        "synchronous",
        "target_session_attrs",
        "user",
    }
)
MASK = "***"


def redact(url: str) -> str:
    """``url`` with the password of its user info and every non-allowlisted query value masked.

    >>> redact("postgresql://app:s3cret@db:5432/x?sslmode=require&password=p")
    'postgresql://app:***@db:5432/x?sslmode=require&password=***'

    A path's bytes that are not UTF-8 are written as escapes (``sqlite:////srv/db\\xff``).
    """
    url = shown_path(url)
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user, has_password, _ = userinfo.partition(":")
        netloc = f"{user}:{MASK}@{host}" if has_password else netloc
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    query = parts.query
    if any(k.lower() not in _SHOWN_PARAMETERS for k, _ in pairs):
        shown = [(k, v if k.lower() in _SHOWN_PARAMETERS else MASK) for k, v in pairs]
        query = urlencode(shown, safe="*/", quote_via=quote)
    out = f"{parts.scheme}://{netloc}{parts.path}"
    return out + (f"?{query}" if query else "") + (f"#{parts.fragment}" if parts.fragment else "")


def sqlite_path(url: str) -> str | None:
    """The file a ``sqlite:///`` URL (scheme in any case) names, ``~`` expanded as a shell
    would (every open, writable or read-only, and every check of the file goes by it); ``""``
    when it names none, None for another scheme."""
    if url[: len("sqlite:///")].lower() != "sqlite:///":
        return None
    path = url[len("sqlite:///") :].split("?", 1)[0]
    return os.path.expanduser(path) if path else ""


def backend(url: str) -> str:
    """The backend name of a store URL (``sqlite``, ``postgresql``, ``memory``)."""
    scheme = url.split("://", 1)[0].lower()
    return "postgresql" if scheme == "postgres" else scheme
