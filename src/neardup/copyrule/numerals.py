"""Copy rule 21: a typo that makes or unmakes a Chinese numeral is a typo.

The copy rule reads Chinese numerals as numbers (:func:`neardup.copyrule.tokens.tokenize`: a
run of numeral characters, or one after 第 or before 次 / 届 / 期 …). A learner who types 下一侧
for 下一次 writes 一 侧 where the other text reads 1 次; 一领一 faces 101 (台北一零一), 十一个 (for
是一个) reads 11 against 是 一. The alignment cannot match the number with its characters, and
the gap of two tokens reads as a replaced name. :func:`numeral_typos` judges such a pair again
with the numbers of those gaps — and of those gaps only — read as the characters they are
written with, when every changed character is a typo: a character of the numeral replaced by
one that reads or looks alike and is no other value (十 / 是, 零 / 领, 百 / 白), or a character
beside the numeral replaced (侧 / 次). A number facing a number (第一次 / 第二次), an exact
figure facing an approximate one (三百 / 数百, 十二 / 十多) or a numeral the rule does not read
(十一 / 十亿), and a passage holding a number stay what they were.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..readings import misheard
from .align import token_alignment
from .rule import CopyRule
from .tokens import _numbers, _token_spans
from .values import _numbers_differ, _value_changes

# The characters of Chinese numerals (the copy rule's readings, :mod:`neardup.copyrule.tokens`).
NUMERAL_CHARACTERS = frozenset("〇零一二两三四五六七八九十百千万")
# Characters that are another value in place of a numeral, whatever they read like: numerals the
# copy rule does not read (亿, the formal 拾 / 肆 …: 十一 / 十亿, 四十 / 拾肆) and characters that
# make a figure approximate (三百 / 数百, 三千 / 上千 — 上 and 三 read fuzzily alike —, 十二 / 十几).
OTHER_VALUES = frozenset("亿億壹贰貳叁參肆伍陆陸柒捌玖拾佰仟廿卅卌几数數上多余餘来來许許")
MAX_TYPED = 2  # characters a typo changes in one gap at most


def numeral_typos(
    a: str,
    b: str,
    tokens: tuple[list[str], Sequence[str]],
    order: list[int] | None,
    ops: Any,
    rule: CopyRule,
    numbers: tuple[frozenset[str], frozenset[str]],
) -> tuple[int, int, bool] | None:
    """The value changes ``(numbers, names, hard)`` of the compared texts ``a`` and ``b`` (in
    canonical order) with the numbers of typed gaps (:func:`_typed`) read as written; None
    where no gap is typed, or where both texts hold numbers the other lacks (the compiled
    numbers test rejects those pairs before any alignment: a typo does not overturn it).
    ``tokens``: ``a``'s and ``b``'s tokens (``b``'s put in ``order``), aligned by ``ops``;
    ``numbers``: the numbers each holds."""
    ta, tb = tokens
    if _numbers_differ(*numbers) or not any(_one_sided(ta, tb, op) for op in ops):
        return None  # most rejected pairs: no gap where a number faces none
    spans_a, spans_b = _token_spans(a), _token_spans(b)
    if spans_a is None or spans_b is None:
        return None  # case folding changed a length: the tokens do not map back
    if order is not None:
        spans_b = [spans_b[t] for t in order]
    written_a = [a[x:y] for x, y in spans_a]
    written_b = [b[x:y] for x, y in spans_b]
    new_a: list[str] = []
    new_b: list[str] = []
    typed = False
    for tag, a0, a1, b0, b1 in ops:
        gap_a, gap_b = list(ta[a0:a1]), list(tb[b0:b1])
        if tag != "equal":
            side_a, side_b = (gap_a, written_a[a0:a1]), (gap_b, written_b[b0:b1])
            if _typed(side_a, side_b):
                gap_a, typed = _as_written(*side_a), True
            elif _typed(side_b, side_a):
                gap_b, typed = _as_written(*side_b), True
        new_a += gap_a
        new_b += gap_b
    if not typed:
        return None
    ops = token_alignment(new_a, new_b)
    return _value_changes(
        new_a, new_b, rule, (_numbers(new_a), _numbers(new_b)), ordered=True, opcodes=ops
    )


def _one_sided(ta: Sequence[str], tb: Sequence[str], op: tuple[str, int, int, int, int]) -> bool:
    """Whether the alignment's ``op`` is a gap where one side holds a number and the other none."""
    tag, a0, a1, b0, b1 = op
    return tag != "equal" and bool(_numbers(ta[a0:a1])) != bool(_numbers(tb[b0:b1]))


def _as_written(tokens: list[str], written: list[str]) -> list[str]:
    """``tokens`` with each number read from Chinese numerals (``written``: what each token is
    written as) replaced by its characters, a token each."""
    out: list[str] = []
    for token, characters in zip(tokens, written, strict=True):
        numeral = token != characters and set(characters) <= NUMERAL_CHARACTERS
        out += list(characters) if numeral else [token]
    return out


def _typed(side: tuple[list[str], list[str]], other: tuple[list[str], list[str]]) -> bool:
    """Whether a gap's ``side`` (tokens, and what each is written as) holds numbers read from
    Chinese numerals where the ``other`` side holds none, and written out the two are one
    string typed otherwise in one or two characters, each a typo: a numeral's character
    replaced by one that reads or looks alike and is no other value (a numeral, one the copy
    rule does not read, or an approximation: :data:`OTHER_VALUES`), or a character beside the
    numeral replaced — two homophones for two characters, as :func:`~.values._typos` reads
    合力 / 和利 (一零一 / 一灵异, and so 一千 / 以前). A gap of one token each is left as it is
    (the compiled test of one replaced token decides those pairs)."""
    tokens, written = side
    held = _numbers(tokens)
    if len(tokens) + len(other[0]) <= 2 or _numbers(other[0]) or not held:
        return False
    numbers = [(t, w) for t, w in zip(tokens, written, strict=True) if t in held]
    if any(t == w or not set(w) <= NUMERAL_CHARACTERS for t, w in numbers):
        return False  # a number written in digits, or of another kind of reading
    mine, theirs = "".join(written), "".join(other[1])
    if len(mine) != len(theirs):
        return False
    changed = [(x, y) for x, y in zip(mine, theirs, strict=True) if x != y]
    return 0 < len(changed) <= MAX_TYPED and all(
        x not in NUMERAL_CHARACTERS
        or (y not in NUMERAL_CHARACTERS | OTHER_VALUES and misheard(x, y) == 0)
        for x, y in changed
    )
