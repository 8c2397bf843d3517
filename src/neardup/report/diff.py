"""Side-by-side differences: character-level for Chinese, word-level for Latin script."""

from __future__ import annotations

import html
import re

from ..copyrule import CJK_RANGES

# every character belongs to exactly one token, so the tokens join back into the text
_TOKEN = re.compile(f"[{CJK_RANGES}]|[^\\W_{CJK_RANGES}]+|\\s+|.", re.S)


def tokens(text: str) -> list[str]:
    """Diff units of ``text``: each CJK character, each run of other letters or digits (a
    word, a number), each run of white space, each other character.

    >>> tokens("新闻 Shr 1.20")
    ['新', '闻', ' ', 'Shr', ' ', '1', '.', '20']
    """
    return _TOKEN.findall(text)


def diff_html(a: str, b: str) -> tuple[str, str]:
    """Two HTML fragments: ``a`` with what only it has in ``<del>``, ``b`` with what only it
    has in ``<ins>`` (an insert/delete alignment over :func:`tokens`). White space is not a
    difference: any run of it aligns with any other (``this\nmorning`` / ``this morning\n``
    differ in no word), and one only a side has is shown unmarked."""
    from ..copyrule import token_alignment

    ta, tb = tokens(a), tokens(b)
    left: list[str] = []
    right: list[str] = []
    for tag, a0, a1, b0, b1 in token_alignment(_keys(ta), _keys(tb)):  # the copy rule's
        part_a = html.escape("".join(ta[a0:a1]))
        part_b = html.escape("".join(tb[b0:b1]))
        if tag == "equal":
            left.append(part_a)
            right.append(part_b)
            continue
        if part_a:
            left.append(part_a if part_a.isspace() else f"<del>{part_a}</del>")
        if part_b:
            right.append(part_b if part_b.isspace() else f"<ins>{part_b}</ins>")
    return "".join(left), "".join(right)


def _keys(parts: list[str]) -> list[str]:
    """What the alignment compares: each token, a run of white space as one space."""
    return [" " if t.isspace() else t for t in parts]
