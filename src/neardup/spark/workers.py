"""The methods a Spark worker runs, built once per Python worker process (not per task)."""

from __future__ import annotations

from typing import Any

from ..methods import create

_cache: dict[tuple[str, str, str], Any] = {}


def worker_method(name: str, options: dict[str, Any], tables: Any = None) -> Any:
    """The method ``name`` with ``options`` (and a frozen ``tables``, e.g. ``auto``'s
    common-gram table), cached by all three."""
    key = (name, repr(sorted(options.items())), tables.digest() if tables is not None else "")
    method = _cache.get(key)
    if method is None:
        extra = {"tables": tables} if tables is not None else {}
        method = _cache[key] = create(name, **extra, **options)
    return method
