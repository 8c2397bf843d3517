"""Tables derived from code and data at run time, cached on disk between processes.

Some lookup tables are computed from every code point or every character of a shipped list
(the normalisation table, the punctuation marks, the readings' hashes): tenths of a second that
every process — each ``neardup`` command, each Spark executor — would pay again. They are kept
as ``.npy`` files under ``$NEARDUP_CACHE`` (default ``~/.cache/neardup``), named by a digest of
what they are built from and the Unicode version of this Python, so a table built by other code
or from other data is never reused; an unusable file is rebuilt, and an unwritable cache leaves
the table in memory only.
"""

from __future__ import annotations

import hashlib
import os
import unicodedata
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np


def digest_of(sources: Iterable[bytes | str | os.PathLike]) -> str:
    """A short digest of byte strings, texts and the contents of files."""
    h = hashlib.sha256()
    for source in sources:
        if isinstance(source, bytes):
            h.update(source)
        elif isinstance(source, str):
            h.update(source.encode())
        else:
            h.update(Path(source).read_bytes())
    return h.hexdigest()[:12]


def cache_file(name: str, digest: str) -> Path:
    root = os.environ.get("NEARDUP_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "neardup"
    )
    return Path(root) / f"{name}-{digest}-unicode{unicodedata.unidata_version}.npy"


def cached_array(
    name: str,
    digest: str,
    build: Callable[[], np.ndarray],
    *,
    usable: Callable[[np.ndarray], bool],
) -> np.ndarray:
    """The array ``build`` makes, read from the cache when a ``usable`` one made from the same
    sources (``digest``) is there, else built and cached."""
    path = cache_file(name, digest)
    try:
        array = np.load(path)
        if usable(array):
            return array
    except (OSError, ValueError, EOFError):  # missing, foreign or cut short: rebuilt
        pass
    array = build()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(tmp, array)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home: keep the array in memory only
    return array
