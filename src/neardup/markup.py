"""Social-media markup that carries no content: removed before comparing short texts.

Reposts of one Weibo post differ by what the platform adds around it, not by what it says: a
repost prefix (``转发微博``, ``//@user:``), a reply prefix (``回复@user:``), @mentions,
``#topic#`` tags, ``[emoji]`` codes and emoji, and shortened URLs. A URL alone can halve the
character-3-gram Jaccard of a headline, so the ``ngram`` method can drop these first
(``strip_markup=True``; on by default on the short route of ``auto``). A text made only of
markup is kept as it is, so that it is not mistaken for every other such text. A ``#topic#`` may
hold spaces (Weibo campaign tags do): a long shared tag must not be what makes two different
comments look alike.

Crawler residue is markup too: line breaks and tabs written as escapes (``\\n``, ``\\r\\n``),
which would otherwise glue ``n`` or ``rn`` to the words and figures beside them (``38\\r\\n货运量``
is not the figure 38): the same page captured by two crawlers must stay a copy.

Markup is found width-insensitively (full-width ``ｈｔｔｐ://ｔ.ｃｎ/…`` and ``＠user`` are caught), so
the returned text is in Unicode NFKC form; normalisation applies NFKC anyway.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

MARKUP_VERSION = 6  # what counts as markup; stored with online indexes that strip it (6: replies)

MARKUP = re.compile(
    r"https?(?:\s?[:~]+\s?/*|\s?/+)[!-~]*"  # URLs, also cut short or with marks disturbed
    r"|//@[^:：\s]{1,30}[:：]"  # repost chain: //@user:
    r"|回复@[^:：\s]{1,30}[:：]"  # a reply: 回复@user:
    r"|@[\w\-]{1,30}"  # @mention
    r"|#[^#\s](?:[^#\n]{0,38}[^#\s])?#"  # #topic#, also with spaces inside (not "#3 and #4")
    r"|\[[^\[\]\s]{1,8}\]"  # [emoji] codes
    r"|转发微博|轉發微博|[Rr]epost"
    r"|[\U0001F300-\U0001FAFF\u2600-\u27BF\uFE0F]"  # emoji and pictographs
    r"|\\+[nrt]"  # line breaks and tabs a crawler wrote as escapes: \n, \r\n, \\n
)


_CONTENT = re.compile(r"[^\W_]")
# A normalised text can hold markup only if it holds one of these (each alternative of
# ``MARKUP`` needs one): a compiled scan finds those texts, where the full pattern, which has
# no common first character, is tried at every position of every text (0.9 s of 3.6 on
# reuters21578_en when every text holding an "h" or an "r" was searched).
_NEEDS = ("http", "转发微博", "轉發微博", "epost")
_NEEDS_ONE = "@#[\\\ufe0f"
_PICTOGRAPHS = ((0x1F300, 0x1FAFF), (0x2600, 0x27BF))


def markup_candidates(cps: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Which of the normalised texts ``(cps, offsets)`` (:func:`neardup.normalize.encode_texts`)
    can hold markup: the others are left as they are by :func:`strip_markup`."""
    from ._kernels import docs_holding

    return docs_holding(cps, offsets, *_trigger_tables())


@lru_cache(maxsize=1)
def _trigger_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For :func:`neardup._kernels.docs_holding`: per code point, 1 for a character that can
    be markup alone, 2 for the first character of a string of ``_NEEDS``; and those strings."""
    starts = np.zeros(max(hi for _, hi in _PICTOGRAPHS) + 1, np.uint8)
    for lo, hi in _PICTOGRAPHS:
        starts[lo : hi + 1] = 1
    starts[[ord(c) for c in _NEEDS_ONE]] = 1
    starts[[ord(s[0]) for s in _NEEDS]] = 2
    needles = np.array([ord(c) for s in _NEEDS for c in s], np.uint32)
    needle_off = np.zeros(len(_NEEDS) + 1, np.int64)
    np.cumsum([len(s) for s in _NEEDS], out=needle_off[1:])
    return starts, needles, needle_off


def strip_markup(
    texts: Sequence[str], *, normalized: bool = False, candidates: np.ndarray | None = None
) -> list[str]:
    """``texts`` without social-media markup, in NFKC form; a text with no letter, digit or CJK
    character left is kept whole (else all such texts would look identical). ``normalized``:
    the texts are already normalised (NFKC, case folded), so only those that can hold markup
    are searched — ``candidates`` (:func:`markup_candidates`) when the caller has them."""
    if not normalized:
        texts = [unicodedata.normalize("NFKC", t) for t in texts]
    elif candidates is None:
        from .normalize import encode_texts

        candidates = markup_candidates(*encode_texts(texts))
    out = list(texts)
    rows = range(len(out)) if candidates is None else np.flatnonzero(candidates).tolist()
    for k in rows:
        stripped = MARKUP.sub(" ", out[k])
        if _CONTENT.search(stripped):
            out[k] = stripped
    return out
