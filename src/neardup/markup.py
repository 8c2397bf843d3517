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
_CONTENT = re.compile(r"[^\W_]")  # what a text needs to be stripped of its markup


# what :func:`character_classes` holds per code point, as bits
WORD = 1  # ``re``'s \\w
SPACE = 2  # ``re``'s \\s
START = 4  # a character a match of MARKUP can start with (the others need no test)
STARTS = "h/回@#[转轉Rr\\\ufe0f"
STARTS_RANGES = ((0x1F300, 0x1FAFF), (0x2600, 0x27BF))


def build_character_classes() -> np.ndarray:
    """The table of :func:`character_classes`, found by ``re`` itself over every code point."""
    every = "".join(map(chr, range(0x110000)))
    table = np.zeros(0x110000, np.uint8)
    for pattern, bit in ((r"\w", WORD), (r"\s", SPACE)):
        found = np.fromiter((m.start() for m in re.finditer(pattern, every)), np.int64)
        table[found] |= bit
    table[[ord(c) for c in STARTS]] |= START
    for lo, hi in STARTS_RANGES:
        table[lo : hi + 1] |= START
    return table


def classes_digest() -> str:
    """What the table is built from (with the Unicode version, its name in the caches)."""
    from .tablecache import digest_of

    return digest_of(["re: \\w 1, \\s 2, start 4", STARTS, repr(STARTS_RANGES)])


@lru_cache(maxsize=1)
def character_classes() -> np.ndarray:
    """Per code point, ``WORD``, ``SPACE`` and ``START`` bits for the compiled markup kernel
    (:mod:`neardup._markupkernels`), so that it reads ``\\w`` and ``\\s`` as ``re`` does:
    shipped with the package, cached on disk where it is not."""
    from .tablecache import cached_array

    def usable(table: np.ndarray) -> bool:
        return table.shape == (0x110000,) and table.dtype == np.uint8

    return cached_array("charclasses", classes_digest(), build_character_classes, usable=usable)


def strip_markup_encoded(cps: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`strip_markup` of texts as code points and offsets
    (:func:`neardup.normalize.encode_texts`): by a compiled kernel that releases the interpreter
    lock, or for small work (:func:`neardup.compiling.small`) by the pattern itself — the same
    result."""
    from .compiling import small
    from .normalize import decode_texts, encode_texts

    if small(len(cps)):
        return encode_texts(strip_markup_by_pattern(decode_texts(cps, offsets)))
    from ._markupkernels import strip_markup_codepoints

    return strip_markup_codepoints(
        np.ascontiguousarray(cps, np.uint32), np.ascontiguousarray(offsets, np.int64),
        character_classes(),
    )  # fmt: skip


def strip_markup_by_pattern(texts: Sequence[str]) -> list[str]:
    """Each text with the matches of :data:`MARKUP` replaced by a space, unless nothing but
    markup was in it (:func:`strip_markup` by the regular expression, always; the kernel's
    oracle)."""
    out = []
    for text in texts:
        stripped = MARKUP.sub(" ", text)
        out.append(stripped if _CONTENT.search(stripped) else text)
    return out


def strip_markup(texts: Sequence[str], *, normalized: bool = False) -> list[str]:
    """``texts`` without social-media markup, in NFKC form: each match of :data:`MARKUP`
    replaced by a space; a text with no letter, digit or CJK character left is kept whole (else
    all such texts would look identical). ``normalized``: the texts are already in NFKC form."""
    from .normalize import decode_texts, encode_texts

    if not normalized:
        texts = [unicodedata.normalize("NFKC", t) for t in texts]
    return decode_texts(*strip_markup_encoded(*encode_texts(texts)))
