"""A per-code-point table that lets compiled code normalise most text exactly like :func:`normalize`.

For a "simple" code point ``c`` — combining class 0, not able to compose with a neighbour, and
mapping to exactly one code point under NFKC → casefold → NFKC — normalising a string of simple
code points is the same as mapping each one on its own. The table stores that mapping, plus
markers for characters that are deleted (invisible), become white space, or are ``COMPLEX``: a
text holding any complex character (combining marks, Hangul jamo, mappings to white space or
markup, and ``<``/``&`` when HTML is stripped) takes the exact Python path instead.

A simple code point may also map to several simple ones (``…`` → ``...``, ``ß`` → ``ss``, ``℃``
→ ``°c``): its entry is ``EXPAND + k``, and the ``k``-th item past the code points
(``table[_N + k]``) holds how many follow, then them. Chinese writes its ellipsis ``……``: 95 %
of weibo_ced_zh's posts that took the Python path (25,208 of 771,960, a fifth of the time made
comparable) held nothing else.
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
EXPAND = 0x80000000  # EXPAND + k: the expansion at table[_N + k] (its length, then its code points)
_N = 0x110000
LONGEST_EXPANSION = 8  # longer mappings (ligatures of Arabic phrases) take the Python path


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
    expansions: list[int] = []
    category = unicodedata.category
    for cp in range(_N):
        c, m = chars[cp], parts[cp]
        if m == c and category(c) in ("Cn", "Co") and not _jamo_like(cp):
            table[cp] = cp  # unassigned or private use: unchanged (most of the table)
        elif 0xD800 <= cp <= 0xDFFF:
            table[cp] = COMPLEX
        elif _INVISIBLE.fullmatch(c):
            table[cp] = DELETE
        elif len(m) == 1 and m.isspace():
            table[cp] = SPACE
        elif not _alone(c, m, seconds):
            table[cp] = COMPLEX
        elif len(m) == 1:
            table[cp] = ord(m)
        else:
            table[cp] = EXPAND + len(expansions)
            expansions += [len(m), *map(ord, m)]
    return np.concatenate([table, np.array(expansions, np.uint32)])


def _alone(c: str, m: str, seconds: set[int]) -> bool:
    """Whether ``c``, which normalises to ``m``, normalises to ``m`` wherever it stands: neither
    it nor any character of ``m`` combines or composes with a neighbour, and a mapping of
    several characters holds no white space, nothing invisible and no markup (steps the whole
    text takes after normalising) and is at most ``LONGEST_EXPANSION`` long."""
    from .normalize import _INVISIBLE

    if not m or len(m) > LONGEST_EXPANSION:
        return False
    cp = ord(c)
    nfkd = unicodedata.normalize("NFKD", c)
    if (
        unicodedata.combining(c)
        or cp in seconds
        or unicodedata.combining(nfkd[0])
        or ord(nfkd[0]) in seconds
        or _jamo_like(cp)
    ):
        return False
    for x in m:
        if unicodedata.combining(x) or ord(x) in seconds or _jamo_like(ord(x)):
            return False
        if len(m) > 1 and (x.isspace() or x in "<&" or _INVISIBLE.fullmatch(x)):
            return False
    return True


def cached_table(name: str, digest: str, build: Callable[[], np.ndarray]) -> np.ndarray:
    """A per-code-point uint32 table, cached on disk (:mod:`neardup.tablecache`)."""
    from .tablecache import cached_array

    def usable(table: np.ndarray) -> bool:  # the code points, and the expansions past them
        return table.ndim == 1 and table.shape[0] >= _N and table.dtype == np.uint32

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
