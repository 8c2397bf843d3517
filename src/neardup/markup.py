"""Social-media markup that carries no content: removed before comparing short texts.

Reposts of one Weibo post differ by what the platform adds around it, not by what it says: a
repost prefix (``转发微博``, ``//@user:``), a reply prefix (``回复@user:``), @mentions,
``#topic#`` tags, ``[emoji]`` codes and emoji, and shortened URLs. A URL alone can halve the character-3-gram Jaccard of a headline,
so the ``ngram`` method can drop these first (``strip_markup=True``; on by default on the short
route of ``auto``). A text made only of markup is kept as it is, so that it is not mistaken for
every other such text. A ``#topic#`` may hold spaces (Weibo campaign tags do): a long shared tag
must not be what makes two different comments look alike.

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
# A text can hold markup only if it holds one of these (each alternative of ``MARKUP`` needs
# one): substring tests run at memory speed, where the full pattern, which has no common first
# character, is tried at every position (0.9 s of 3.6 on reuters21578_en before this test).
_NEEDS = ("http", "@", "#", "[", "转发微博", "轉發微博", "epost", "\\")
_PICTOGRAPH = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf\ufe0f]")


def _may_hold_markup(text: str) -> bool:
    return any(s in text for s in _NEEDS) or _PICTOGRAPH.search(text) is not None


def strip_markup(texts: Sequence[str], *, normalized: bool = False) -> list[str]:
    """``texts`` without social-media markup, in NFKC form; a text with no letter, digit or CJK
    character left is kept whole (else all such texts would look identical). ``normalized``:
    the texts are already normalised (NFKC, case folded), so only texts holding a substring
    that markup needs are searched."""
    out = []
    for text in texts:
        if normalized:
            if not _may_hold_markup(text):
                out.append(text)
                continue
        else:
            text = unicodedata.normalize("NFKC", text)
        stripped = MARKUP.sub(" ", text)
        out.append(stripped if _CONTENT.search(stripped) else text)
    return out
