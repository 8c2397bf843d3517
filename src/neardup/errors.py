"""The one exception tree of neardup.

::

    NeardupError                      base of everything raised on purpose
    ├── ConfigError (ValueError)      a parameter is out of range; the message says the fix
    ├── InputError (ValueError)       a record or file cannot be read; names the file and record
    ├── IncompatibleIndexError        a persisted index was built with other parameters
    ├── DocumentConflictError         an id is stored with another text (no replace asked)
    ├── RequestError                  an HTTP request the service refuses (status, error code)
    ├── MissingDependencyError (ImportError)   an optional extra is not installed
    └── StoreError                    a storage backend failed or holds inconsistent data
        ├── StoreBusyError            locked, unreachable or in use by another writer: retry later
        └── StoreFullError            the disk or database is full
"""

from __future__ import annotations

from .shown import shown_path


class NeardupError(Exception):
    """Base class of every error neardup raises on purpose."""


class ConfigError(NeardupError, ValueError):
    """An option has an invalid value; the message names it, the value and the fix."""


class InputError(NeardupError, ValueError):
    """Bad input data; the message names the source and, where known, the record number."""

    def __init__(self, message: str, *, source: str | None = None, record: int | None = None):
        where = ""
        if source is not None:
            source = shown_path(source)  # a file name need not be UTF-8
            where = f"{source}"
            if record is not None:
                where += f", record {record}"
            where += ": "
        super().__init__(where + message)
        self.source = source
        self.record = record
        self.reason = message


class OutputError(NeardupError):
    """An output could not be written (disk full, permissions, standard output closed); the
    message names it and the reason. Nothing of the run is published."""


class IncompatibleIndexError(NeardupError):
    """A persisted index or store was written with a different algorithm version or parameters."""


class DocumentConflictError(NeardupError):
    """The id is stored with a different text and ``replace`` was not asked for (``doc_id``:
    that id, when one document is the cause)."""

    def __init__(self, message: str, *, doc_id: str | None = None):
        super().__init__(message)
        self.doc_id = doc_id


class RequestError(NeardupError):
    """A request the HTTP service refuses: its status code and machine-readable error code."""

    def __init__(self, status: int, error: str):
        super().__init__(f"{status} {error}")
        self.status, self.error = status, error


class MissingDependencyError(NeardupError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""


class StoreError(NeardupError):
    """A storage backend failed or holds inconsistent data."""


class StoreBusyError(StoreError):
    """The store is locked, unreachable or held by another writer; the same call may work later."""


class StoreFullError(StoreError):
    """The store cannot grow: the disk (or the database's quota) is full."""


def require(module: str, *, extra: str, purpose: str):
    """Import an optional dependency or raise an error naming the extra that provides it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{purpose} needs the optional package {module!r}; "
            f"install it with: pip install 'neardup[{extra}]'"
        ) from exc


def refuse_unordered(items: object, name: str, wanted: str) -> None:
    """A str, a dict or a set where a sequence of documents is wanted is a mistake: iterating it
    gives characters, keys or an arbitrary order, never the caller's documents."""
    if isinstance(items, (str, bytes, dict, set, frozenset)):
        raise InputError(f"{name} must be {wanted}, not a {type(items).__name__}")
