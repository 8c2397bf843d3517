"""A dash between two words is a word break: the compared text keeps a space for it.

The compared text drops punctuation, which joins what a dash written without spaces separates:
"November 2003—as consumer debt" compared as ``2003as``, so the same article with " - " in that
place (or the dash spaced, or another crawler's "--") read a changed year and was no copy. A run
of dashes (figure, en, em dashes, the horizontal bar, two- and three-em dashes, or two or more
hyphens) between two Latin letters or digits becomes one space; a single hyphen (well-known,
1-2) is a hyphen and still joins, and a dash beside CJK text (他说——我们) is punctuation as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numba
import numpy as np

_DASH_CHARS = "\u2012\u2013\u2014\u2015\u2e3a\u2e3b\ufe58"
_WORD = "0-9A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
_DASH_RUN = re.compile(f"(?<=[{_WORD}])[-{_DASH_CHARS}]+(?=[{_WORD}])")


def space_dashes(texts: Sequence[str]) -> list[str]:
    """``texts`` with each dash run between two words replaced by a space (the pattern; the
    oracle of :func:`space_dashes_encoded`'s kernel)."""
    return [_DASH_RUN.sub(_spaced, t) if "-" in t or _has_dash(t) else t for t in texts]


def _spaced(match: re.Match[str]) -> str:
    run = match.group()
    return run if run == "-" else " "


def _has_dash(text: str) -> bool:
    return any(c in text for c in _DASH_CHARS)


def space_dashes_encoded(cps: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """:func:`space_dashes` of texts as code points (their offsets stay: a run's first
    character becomes a space, the rest stay dashes, which the punctuation filter drops). The
    array is copied only when it has such a run (the caller's may be read-only or shared)."""
    at = _dash_run_starts(cps, np.ascontiguousarray(offsets, np.int64))
    if not len(at):
        return cps
    cps = np.array(cps, np.uint32)
    cps[at] = 0x20
    return cps


@numba.njit(cache=True, nogil=True)
def _is_dash(c):
    return c == 0x2D or 0x2012 <= c <= 0x2015 or c == 0x2E3A or c == 0x2E3B or c == 0xFE58


@numba.njit(cache=True, nogil=True)
def _is_word(c):
    return (
        (0x30 <= c <= 0x39)
        or (0x41 <= c <= 0x5A)
        or (0x61 <= c <= 0x7A)
        or (0xC0 <= c <= 0x24F and c != 0xD7 and c != 0xF7)
    )


@numba.njit(cache=True, nogil=True)
def _dash_run_starts(cps, offsets):
    """Where each dash run between two words starts (ascending positions)."""
    out = np.empty(16, np.int64)
    count = 0
    for d in range(offsets.shape[0] - 1):
        i, end = offsets[d], offsets[d + 1]
        while i < end:
            if not _is_dash(cps[i]):
                i += 1
                continue
            j = i
            while j < end and _is_dash(cps[j]):
                j += 1
            single_hyphen = j - i == 1 and cps[i] == 0x2D
            between = i > offsets[d] and j < end and _is_word(cps[i - 1]) and _is_word(cps[j])
            if between and not single_hyphen:
                if count == out.shape[0]:
                    out = np.concatenate((out, np.empty(count, np.int64)))
                out[count] = i
                count += 1
            i = j
    return out[:count]
