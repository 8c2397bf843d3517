"""Tables derived from code and data at run time: shipped with the package, else cached on disk.

Some lookup tables are computed from every code point or every character of a shipped list
(the normalisation table, the punctuation marks, the readings' hashes): about a second that
every fresh install, every new Spark executor and every fresh CI machine would pay on its first
run. Each is named by a digest of what it is built from and the Unicode version of this Python,
so a table built by other code or from other data is never reused. Looked up in order:

1. shipped in the package (``neardup/data/table-*.npz``, written by ``python -m
   neardup.tablecache --ship``; a test checks every shipped table equals a fresh build);
2. cached under ``$NEARDUP_CACHE`` (default ``~/.cache/neardup``) as ``.npy`` files;
3. built, then cached there (an unusable file is rebuilt; an unwritable cache leaves the
   table in memory only).

A changed builder or another Unicode version finds no shipped table under its name and builds
its own, as before: a stale shipped file costs time, never a wrong table.

    python -m neardup.tablecache --ship    # after changing a table's builder or sources
"""

from __future__ import annotations

import hashlib
import os
import unicodedata
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

SHIPPED = Path(__file__).with_name("data")
_shipping = False  # ``--ship``: build every table afresh and write it to SHIPPED


def digest_of(sources: Iterable[bytes | str | os.PathLike]) -> str:
    """A short digest of byte strings, texts and the contents of files (a file is named by a
    ``Path``: a ``str`` is a text, so a path given as one would key on where the file is, not
    on what it holds)."""
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


def shipped_file(name: str, digest: str) -> Path:
    return SHIPPED / f"table-{name}-{digest}-unicode{unicodedata.unidata_version}.npz"


def cached_array(
    name: str,
    digest: str,
    build: Callable[[], np.ndarray],
    *,
    usable: Callable[[np.ndarray], bool],
) -> np.ndarray:
    """The array ``build`` makes: the shipped one, or the cached one, when a ``usable`` one
    made from the same sources (``digest``) is there, else built and cached."""
    if _shipping:
        array = build()
        ship(shipped_file(name, digest), array)
        return array
    for path, load in (
        (shipped_file(name, digest), load_shipped),
        (cache_file(name, digest), np.load),
    ):
        try:
            array = load(path)
            if usable(array):
                return array
        except (OSError, ValueError, EOFError, KeyError):  # missing, foreign or cut short
            pass
    path = cache_file(name, digest)
    array = build()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(tmp, array)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home: keep the array in memory only
    return array


def ship(path: Path, array: np.ndarray) -> None:
    """Write ``array`` compressed; a table of code points as the differences of neighbours
    (mostly 1, or 0: a few kB where the array is 4.4 MB)."""
    if array.ndim == 1 and array.dtype.kind == "u":
        np.savez_compressed(path, delta=np.diff(array, prepend=array.dtype.type(0)))
    else:
        np.savez_compressed(path, array=array)


def load_shipped(path: Path) -> np.ndarray:
    """The array :func:`ship` wrote (differences summed back, modulo the integer width)."""
    with np.load(path) as stored:
        if "delta" in stored.files:
            delta = stored["delta"]
            return np.cumsum(delta, dtype=delta.dtype)
        return stored["array"]


def ship_all() -> list[Path]:
    """Build every table afresh for this Python's Unicode version and write it to
    :data:`SHIPPED`, replacing the shipped tables of the same names and Unicode version."""
    global _shipping
    from importlib import import_module

    from . import _normtable, markup, readings

    normalize = import_module("neardup.normalize")  # the package exports a function of that name

    version = unicodedata.unidata_version
    for old in SHIPPED.glob(f"table-*-unicode{version}.npz"):
        old.unlink()
    _shipping = True
    try:
        _normtable.norm_table.__wrapped__()
        normalize._punctuation_table.__wrapped__(False)
        readings.sound_table.__wrapped__()
        markup.character_classes.__wrapped__()
    finally:
        _shipping = False
    return sorted(SHIPPED.glob(f"table-*-unicode{version}.npz"))


if __name__ == "__main__":
    import sys
    from importlib import import_module

    if sys.argv[1:] != ["--ship"]:
        sys.exit("usage: python -m neardup.tablecache --ship")
    # the package's module, not this __main__ copy: its flag is the one the builders see
    for written in import_module("neardup.tablecache").ship_all():
        print(f"{written.name}  {written.stat().st_size:,} bytes")
