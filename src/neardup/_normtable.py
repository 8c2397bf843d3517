"""A per-code-point table that lets compiled code normalise most text exactly like :func:`normalize`.

For a "simple" code point ``c`` — combining class 0, not able to compose with a neighbour, and
mapping to exactly one code point under NFKC → casefold → NFKC — normalising a string of simple
code points is the same as mapping each one on its own. The table stores that mapping, plus
markers for characters that are deleted (invisible), become white space, or are ``COMPLEX``: a
text holding any complex character (combining marks, Hangul jamo, multi-character mappings such
as ``ß`` → ``ss``, and ``<``/``&`` when HTML is stripped) takes the exact Python path instead.
Tests check both paths agree on random and real text.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np

DELETE = 0xFFFFFFFF
SPACE = 0xFFFFFFFE
COMPLEX = 0xFFFFFFFD
_N = 0x110000


def _second_elements() -> set[int]:
    """Code points that can be the second part of a canonical composition."""
    seconds = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))  # Hangul V and T jamo
    for cp in range(_N):
        d = unicodedata.decomposition(chr(cp))
        if d and not d.startswith("<"):
            parts = d.split()
            if len(parts) == 2:
                seconds.add(int(parts[1], 16))
    return seconds


def _jamo_like(cp: int) -> bool:
    """Hangul jamo and their compatibility forms: they compose with neighbours."""
    return (
        0x1100 <= cp <= 0x11FF
        or 0x3130 <= cp <= 0x318F
        or 0xA960 <= cp <= 0xA97F
        or 0xD7B0 <= cp <= 0xD7FF
        or 0xFFA0 <= cp <= 0xFFDC
    )


def build_table() -> np.ndarray:
    from .normalize import _INVISIBLE

    chars = [chr(cp) for cp in range(_N)]
    sep = "\x00"
    joined = sep.join(c if c != sep and not 0xD800 <= ord(c) <= 0xDFFF else "\x01" for c in chars)
    mapped = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", joined).casefold())
    parts = mapped.split(sep)
    if len(parts) != _N:  # pragma: no cover - a mapping produced or swallowed the separator
        raise RuntimeError("normalisation table could not be built")
    seconds = _second_elements()
    table = np.empty(_N, np.uint32)
    category = unicodedata.category
    for cp in range(_N):
        c, m = chars[cp], parts[cp]
        if m == c and category(c) in ("Cn", "Co") and not _jamo_like(cp):
            table[cp] = cp  # unassigned or private use: unchanged (most of the table)
        elif 0xD800 <= cp <= 0xDFFF:
            table[cp] = COMPLEX
        elif _INVISIBLE.fullmatch(c):
            table[cp] = DELETE
        elif len(m) != 1:
            table[cp] = COMPLEX
        elif m.isspace():
            table[cp] = SPACE
        else:
            nfkd = unicodedata.normalize("NFKD", c)
            if (
                unicodedata.combining(c)
                or unicodedata.combining(m)
                or cp in seconds
                or ord(m) in seconds
                or unicodedata.combining(nfkd[0])
                or ord(nfkd[0]) in seconds
                or _jamo_like(cp)
            ):
                table[cp] = COMPLEX
            else:
                table[cp] = ord(m)
    return table


def cached_table(name: str, digest: str, build: Callable[[], np.ndarray]) -> np.ndarray:
    """A per-code-point uint32 table, cached on disk (:mod:`neardup.tablecache`)."""
    from .tablecache import cached_array

    def usable(table: np.ndarray) -> bool:
        return table.shape == (_N,) and table.dtype == np.uint32

    return cached_array(name, digest, build, usable=usable)


@lru_cache(maxsize=1)
def source_digest() -> str:
    """What the table is built from — this module's code and the invisible-character pattern
    — as a short digest: a cached table is used only if it was built from the same (no
    hand-bumped version to forget)."""
    from .normalize import _INVISIBLE
    from .tablecache import digest_of

    return digest_of([Path(__file__), _INVISIBLE.pattern])


@lru_cache(maxsize=1)
def norm_table() -> np.ndarray:
    """The table, built once and cached on disk (rebuilt if the cache is missing or unusable)."""
    return cached_table("normtable", source_digest(), build_table)
